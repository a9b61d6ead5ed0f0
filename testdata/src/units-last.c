/* The last unit of testdata/bin/units (units-main.c). */
static inline unsigned long last_step(unsigned long s, unsigned long i)
{
	return s + i * i;
}

__attribute__((noinline)) unsigned long last_work(unsigned long n)
{
	unsigned long s = 2;

	for (unsigned long i = 0; i < n; i++)
		s = last_step(s, i);
	return s;
}
