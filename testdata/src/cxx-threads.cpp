// C++ threads with templates, lambdas and std::map: gperftools CPU and heap profiles.
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace store {
template <typename K>
class Index {
public:
    __attribute__((noinline)) void insert(const K& key, long v) { map_[key] += v; }
    __attribute__((noinline)) long lookup(const K& key) const {
        auto it = map_.find(key);
        return it == map_.end() ? 0 : it->second;
    }
private:
    std::map<K, long> map_;
};
}  // namespace store

static volatile long sink;

__attribute__((noinline)) std::string make_key(int i) {
    return "key-" + std::to_string(i % 20000) + "-padding-to-defeat-sso";
}

__attribute__((noinline)) long hash_rounds(int n) {
    unsigned long h = 1469598103934665603UL;
    for (int i = 0; i < n; i++) h = (h ^ (unsigned)i) * 1099511628211UL;
    return (long)h;
}

__attribute__((noinline)) long run_tasks(const std::vector<std::function<long(int)>>& tasks, int n) {
    long s = 0;
    for (int i = 0; i < n; i++) s += tasks[(size_t)i % tasks.size()](i);
    return s;
}

// never freed, so that the heap profile at exit shows it in use
static store::Index<std::string>* const g_index = new store::Index<std::string>[2];

static void writer(int id) {
    for (int i = 0; i < 60000; i++) g_index[id].insert(make_key(i * 7 + id), i);
    long s = 0;
    for (int i = 0; i < 1500000; i++) s += g_index[id].lookup(make_key(i));
    sink += s;
}

static void hasher() {
    std::vector<std::function<long(int)>> tasks;
    tasks.push_back([](int i) { return hash_rounds(2000 + i % 7); });
    tasks.push_back([](int i) { return hash_rounds(500 + i % 3) * 2; });
    sink += run_tasks(tasks, 400000);
}

int main() {
    std::thread a(writer, 0), b(writer, 1), c(hasher);
    a.join();
    b.join();
    c.join();
    std::printf("%ld\n", (long)sink);
    return 0;
}
