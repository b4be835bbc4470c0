#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>
#include <map>
#include <algorithm>
struct Init { int v; Init() : v(1234) { std::puts("static ctor ran"); } ~Init() { std::puts("static dtor ran"); } };
static Init init;
thread_local int tls = 5;
static int thrower(int n) { if (n > 2) throw std::runtime_error("boom " + std::to_string(n)); return n; }
int main() {
  int caught = 0;
  try { thrower(3); } catch (const std::exception &e) { std::printf("caught: %s\n", e.what()); caught = 1; }
  tls += 10;
  std::vector<std::string> v = {"pear", "apple", "fig"};
  std::sort(v.begin(), v.end());
  std::map<std::string, int> m; for (auto &s : v) m[s] = (int)s.size();
  std::printf("init=%d tls=%d caught=%d sorted=%s,%s,%s m[apple]=%d\n", init.v, tls, caught, v[0].c_str(), v[1].c_str(), v[2].c_str(), m["apple"]);
  std::fflush(stdout);
  return tls + caught;
}
