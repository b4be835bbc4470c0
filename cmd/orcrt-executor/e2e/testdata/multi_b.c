extern int a_value(void);
int shared_counter = 2;
int weak_fn(void) { return 100; }
int b_value(void) { return a_value() * 2; }
