#include <string>
#include <cstdio>
#include <cstdlib>

/* std::string(n, c) constructs through libstdc++'s
 * basic_string::_M_construct(unsigned long, char), reached by the PLT. */
__attribute__((noinline)) static size_t make_strings(int rounds)
{
	size_t total = 0;

	for (int i = 0; i < rounds; i++) {
		std::string s(64 + (i & 7), 'a' + (i & 15));
		total += s.size() + (unsigned char)s[i & 31];
	}
	return total;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20000000;

	printf("%zu\n", make_strings(rounds));
	return 0;
}
