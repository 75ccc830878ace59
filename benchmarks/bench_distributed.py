"""asv benchmarks: exact top-k on a Dask LocalCluster of 1 or 2 single-threaded worker processes.

Data: 50,000 × 50 random float32 vectors, sharded on the workers in ``setup`` (as a long-lived
database is), and 1,000 queries; k = 10, cosine. The self-join uses the first 10,000 rows. Skipped when dask.distributed is not installed.
"""
from __future__ import annotations

import numpy as np


class DistributedTopK:
    """neighbors.topk(backend="dask") of 1,000 queries over 50,000 × 50, by number of workers."""

    params = [1, 2]
    param_names = ["n_workers"]
    timeout = 180

    def setup(self, n_workers):
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise NotImplementedError("dask.distributed is not installed")
        from functools import partial

        from embgeo import distributed as dd
        from embgeo import neighbors

        rng = np.random.default_rng(0)
        self.D = rng.standard_normal((50_000, 50)).astype(np.float32)
        self.Q = np.ascontiguousarray(self.D[:1000])
        self.cluster = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                    dashboard_address=None)
        self.client = Client(self.cluster)
        self.db = dd.shard(self.D, self.client)
        self.small = dd.shard(self.D[:10_000], self.client)
        self.topk = partial(neighbors.topk, backend=neighbors.Dask(client=self.client))
        self.topk(self.Q[:4], self.db, 10)  # JIT warm-up on the workers

    def teardown(self, n_workers):
        self.client.close()
        self.cluster.close()

    def time_topk(self, n_workers):
        self.topk(self.Q, self.db, 10)

    def time_self_join_10k(self, n_workers):
        """The synonym-table join: every row of a 10,000-row database against all rows."""
        self.topk(self.small, self.small, 10, exclude=np.arange(10_000))
