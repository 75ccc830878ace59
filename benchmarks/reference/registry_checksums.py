"""Regenerate the sha256 tables of the data registry (``embgeo/data/checksums/*.json``) from git.

The word-similarity files (Faruqui & Dyer's eval-word-vectors) and the Glavaš et al. (2019) BLI
dictionaries (xling-eval) are served by GitHub from git; the sha256 of the file at a pinned commit
is the sha256 of what the pinned ``raw.githubusercontent.com`` URL returns. This script reads a
clone (``git clone --bare`` is enough) and writes the table the registry reads, with the
repository, commit and folder its URLs are built from::

    python benchmarks/reference/registry_checksums.py eval-word-vectors eval-word-vectors.git
    python benchmarks/reference/registry_checksums.py xling-eval xling-eval.git --commit COMMIT
    python benchmarks/reference/registry_checksums.py panlex-bli panlex-bli.git
    python benchmarks/reference/registry_checksums.py word-benchmarks-outlier word-benchmarks.git --commit COMMIT
    python benchmarks/reference/registry_checksums.py negater-conceptnet-full NegatER.git --commit COMMIT

The PanLex-BLI lexicons (Vulić et al. 2019, cambridgeltl/panlex-bli) are one zip archive per source
language; their table also lists the files inside each archive (``members``), the dictionaries the
registry names one by one. The bundle of all of them (``all-l1-l2.zip``) is left out: it repeats the
per-language archives, and the fetched mirror did not hold its blob.

Without ``--commit`` the table is recomputed at the commit it already pins (a check that nothing
changed: ``git diff`` shows no difference); with it, the registry moves to that commit.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import subprocess
import zipfile
from pathlib import Path

CHECKSUMS = Path(__file__).resolve().parents[2] / "embgeo" / "data" / "checksums"
#: table name -> (GitHub repository, folder of the files in it)
SOURCES = {
    "eval-word-vectors": ("mfaruqui/eval-word-vectors", "data/word-sim"),
    "xling-eval": ("codogogo/xling-eval", "bli_datasets"),
    "panlex-bli": ("cambridgeltl/panlex-bli", "lexicons"),
    "word-benchmarks-categorization": ("vecto-ai/word-benchmarks", "word-categorization/monolingual/en"),
    "word-benchmarks-outlier": ("vecto-ai/word-benchmarks", "outlier-detection/monolingual/en"),
    "word-benchmarks-relations": ("vecto-ai/word-benchmarks", "semantic-relation/monolingual/en"),
    "hypernymysuite": ("facebookresearch/hypernymysuite", "data"),
    "negater-conceptnet-full": ("tsafavi/NegatER", "data/conceptnet/full"),
}
#: table name -> the files of the folder it keeps (default: all)
ONLY = {"panlex-bli": re.compile(r"[a-z]{2}-l2\.zip")}


def _git(gitdir: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def table(gitdir: str, repository: str, commit: str, prefix: str, only=None) -> dict:
    """``{"repository", "commit", "prefix", "files": [[path under prefix, size, sha256], ...]}``.

    Zip archives add ``"members": {archive: [file inside it, ...]}``; ``only`` (a regular
    expression) keeps the files whose path under ``prefix`` matches it.
    """
    names = _git(gitdir, "ls-tree", "-r", "--name-only", commit, prefix).decode().split()
    files, members = [], {}
    for name in sorted(names):
        rel = name[len(prefix) + 1:]
        if only is not None and not only.fullmatch(rel):
            continue
        data = _git(gitdir, "show", f"{commit}:{name}")
        files.append([rel, len(data), hashlib.sha256(data).hexdigest()])
        if rel.endswith(".zip"):
            members[rel] = [m for m in zipfile.ZipFile(io.BytesIO(data)).namelist() if not m.endswith("/")]
    t = {"repository": repository, "commit": commit, "prefix": prefix,
         "generated_by": "benchmarks/reference/registry_checksums.py", "files": files}
    if members:
        t["members"] = members
    return t


def dumps(t: dict) -> str:
    """JSON with one file a line, so that a change of commit reads as a short diff."""
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in t.items() if k not in ("files", "members"))
    rows = ",\n".join(f"  {json.dumps(row)}" for row in t["files"])
    out = f"{{\n{head},\n \"files\": [\n{rows}\n ]"
    if "members" in t:
        out += ",\n \"members\": {\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}"
                                                    for k, v in t["members"].items()) + "\n }"
    return out + "\n}\n"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("name", choices=sorted(SOURCES), help="which table")
    p.add_argument("gitdir", help="a clone of the table's repository (its .git folder, or a bare clone)")
    p.add_argument("--commit", help="pin this commit (default: the one the table pins now)")
    args = p.parse_args(argv)
    out = CHECKSUMS / f"{args.name}.json"
    repository, prefix = SOURCES[args.name]
    commit = args.commit or (json.loads(out.read_text(encoding="utf-8"))["commit"] if out.exists() else "HEAD")
    commit = _git(args.gitdir, "rev-parse", f"{commit}^{{commit}}").decode().strip()
    out.write_text(dumps(table(args.gitdir, repository, commit, prefix, ONLY.get(args.name))), encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
