/* The second unit of testdata/bin/units (units-main.c). */
static inline unsigned long mid_step(unsigned long s, unsigned long i)
{
	return (s << 1) ^ (i * 7);
}

__attribute__((noinline)) unsigned long mid_work(unsigned long n)
{
	unsigned long s = 1;

	for (unsigned long i = 0; i < n; i++)
		s = mid_step(s, i);
	return s;
}
