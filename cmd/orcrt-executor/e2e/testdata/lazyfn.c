int lazy_fn(int x) { return 2 * x + 1; }
