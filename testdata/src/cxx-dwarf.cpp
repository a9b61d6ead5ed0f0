#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns {
template <typename T>
struct Accum {
    T total{};
    inline void add(T v) { total += v * v + (v >> 1); }
};

template <typename T>
T sum_squares(const std::vector<T>& v) {
    Accum<T> a;
    for (auto x : v) a.add(x);
    return a.total;
}
}  // namespace

static std::map<int, long> g_map;

__attribute__((noinline)) long map_work(int n) {
    long s = 0;
    for (int i = 0; i < n; i++) {
        g_map[(i * 7919) % 5000] += i;
        auto it = g_map.find((i * 31) % 5000);
        if (it != g_map.end()) s += it->second;
    }
    return s;
}

__attribute__((noinline)) long run_callback(const std::function<long(int)>& f, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += f(i);
    return s;
}

int main(int argc, char** argv) {
    int reps = argc > 1 ? std::atoi(argv[1]) : 100;
    std::vector<unsigned long> v(200000);
    for (size_t i = 0; i < v.size(); i++) v[i] = i ^ (i << 3);
    long total = 0;
    auto lam = [&v](int i) -> long { return (long)(v[(size_t)i % v.size()] * 3 + i); };
    for (int r = 0; r < reps; r++) {
        total += (long)ns::sum_squares<unsigned long>(v);
        total += map_work(20000);
        total += run_callback(lam, 100000);
    }
    std::printf("%ld\n", total);
    return 0;
}
