"""embgeo on a Dask cluster: the client, row shards, Gram matrices and experiment grids (``backend="dask"``).

embgeo does not schedule work itself beyond one machine: on a cluster it runs on
`dask.distributed <https://distributed.dask.org>`_, using the current client
(``distributed.get_client()``) unless one is passed::

    from distributed import Client
    client = Client("tcp://scheduler:8786")            # or LocalCluster(), dask-jobqueue, ...
    from embgeo import distributed as dd
    from embgeo import neighbors
    db = dd.shard(e.vectors)                           # row shards, each kept on one worker
    scores, ids = neighbors.topk(queries, db, 10, backend="dask")   # as neighbors.topk(queries, e.vectors, 10)
    scores, ids = e.neighbors(["king"], k=10, backend="dask")       # word queries, the same way
    table = negatives.synonym_table(e, k=10, backend="dask")        # the local table, on the cluster
    G = dd.gram(e.vectors)                                          # = linalg.gram(e.vectors)
    results = dd.map_grid(run_one, {"alpha": [0.5, 1.0], "pair": ["en-de", "en-fi"]})

The package is the layer every Dask path stands on: :func:`get_client` and :func:`current_client`
find the client, :func:`shard` puts a matrix on the workers as a :class:`ShardedDatabase`, row
shards that stay where they are across calls, and :func:`gram` and :func:`map_grid` compute on
them. Neighbour search on the cluster is :mod:`embgeo.neighbors` with ``backend="dask"`` (its
engine, the private ``embgeo.neighbors._dask``, shards through this package); so are the
synonym tables of :mod:`embgeo.negatives`.

How a matrix is sharded
-----------------------
The database is split by rows into shards, one or more per worker, and each shard stays on its
worker across calls when the :class:`ShardedDatabase` that :func:`shard` returns is passed in its
place. Sharding again reuses the shards only of data that cannot change under them: a Dask array
and a read-only array (a memory map opened with ``mmap=True``). A writeable NumPy array is
sharded anew by each call, so an in-place edit is always seen. A
NumPy array is scattered once; a Dask array's row chunks are computed where they are; a
memory-mapped ``.npy`` (an embgeo cache loaded with ``mmap=True``) or a path to one is opened by
each worker itself, so the matrix never travels through the scheduler. Each worker computes and
keeps the inverse row norms of its rows (:meth:`ShardedDatabase.inverse_norms`), the ones a local
cosine search would use.
"""
from ._cluster import ShardedDatabase, current_client, get_client, shard
from ._gram import gram
from ._grid import map_grid

__all__ = ["ShardedDatabase", "shard", "gram", "map_grid", "get_client", "current_client"]
