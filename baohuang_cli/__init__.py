"""Command-line entry points of the `baohuang` console script (bench, fuzz, ...)."""
