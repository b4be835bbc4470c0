#include <cstdio>
#include <stdexcept>
#include <string>
__attribute__((noinline)) static int thrower(int n) { if (n > 2) throw std::runtime_error("boom " + std::to_string(n)); return n; }
__attribute__((noinline)) static int middle(int n) { return thrower(n) + 1; }
int main() {
  int caught = 0;
  for (int i = 0; i < 5; i++) {
    try { middle(i); } catch (const std::exception &e) { std::printf("caught: %s\n", e.what()); caught++; }
  }
  return caught;
}
