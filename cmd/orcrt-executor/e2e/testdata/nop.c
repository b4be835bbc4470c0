/* Does nothing: for cases whose interest is before main runs. */
int main(void){return 0;}
