"""Regenerate the sha256 tables of ``embgeo/registry.py`` from the canonical git repositories.

The word-similarity files (Faruqui & Dyer's eval-word-vectors), the Glavaš et al. (2019) BLI
dictionaries (xling-eval) and gensim's test data are served by GitHub from git; the sha256 of the
file at a pinned commit is the sha256 of what the pinned ``raw.githubusercontent.com`` URL returns.
This script reads bare clones (``git clone --bare``) and prints ``path size sha256`` lines::

    python benchmarks/reference/registry_checksums.py GITDIR COMMIT PREFIX

e.g. ``GITDIR=eval-word-vectors.git COMMIT=94b3dd9fdbac7ed08dbee7179cd5ee464acf0594 PREFIX=data/word-sim``.
"""
import hashlib
import subprocess
import sys


def main(gitdir: str, commit: str, prefix: str) -> None:
    names = subprocess.run(["git", "--git-dir", gitdir, "ls-tree", "-r", "--name-only", commit, prefix],
                           check=True, capture_output=True, text=True).stdout.split()
    for name in names:
        data = subprocess.run(["git", "--git-dir", gitdir, "show", f"{commit}:{name}"],
                              check=True, capture_output=True).stdout
        print(name, len(data), hashlib.sha256(data).hexdigest())


if __name__ == "__main__":
    main(*sys.argv[1:4])
