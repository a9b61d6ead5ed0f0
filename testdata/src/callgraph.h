/* Inlined into its callers: callgrind shows it as code of this file
 * inside them (fi=, fe=). */
static inline unsigned long mix(unsigned long s, unsigned long i)
{
	return (s ^ (s >> 7)) * 31 + i;
}
