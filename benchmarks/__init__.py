"""embgeo's asv benchmarks (bench_*.py) and peer-comparison scripts (compare_*.py)."""
