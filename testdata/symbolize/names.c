/*
 * Functions named as C++ and Rust compilers name them, to test the
 * symbolizer's demangling and address translation (tests/run-symbolize.sh).
 * The two binaries beside this file were built (gcc 12, Debian 12) by
 *
 *   gcc -O1 -g -fPIC -shared -Wl,-Ttext-segment=0x10000 -o libnames.so names.c
 *   gcc -O1 -g -no-pie -o names-exec names.c
 *
 * libnames.so is ET_DYN linked at 0x10000, so its virtual addresses are
 * not its file offsets (as in a prelinked library); names-exec is ET_EXEC.
 */
volatile int sink;

#define FN(id, sym)						\
	int id(int x) __asm__(sym);				\
	__attribute__((noinline, used)) int id(int x)		\
	{							\
		sink += x + __LINE__;				\
		return sink;					\
	}

FN(rust_legacy, "_ZN4core3fmt5write17h0123456789abcdefE")
FN(rust_escaped, "_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h5ad2a06d4a5f84b1E")
FN(rust_closure, "_ZN4main28_$u7b$$u7b$closure$u7d$$u7d$17h1f2e3d4c5b6a7988E")
FN(rust_v0, "_RNvCs1234_7mycrate3foo")
FN(cxx_conversion, "_ZN2ns1AcviEv")
FN(cxx_anonymous, "_ZN12_GLOBAL__N_13fooEv")
FN(cxx_call_op, "_ZNK2ns1AclEi")
FN(cxx_less, "_ZN2nsltERKNS_1AES2_")
FN(cxx_template, "_Z3fooIiEvT_")
FN(cxx_thunk, "_ZThn8_N2ns1B1fEv")
FN(cxx_clone, "_Z3bari.cold")
FN(cxx_lambda, "_ZZ4mainENKUliE_clEi")
FN(cxx_shift_op, "_ZN2nslsERSoRKNS_1AE")
FN(plain_c, "plain_c")

int main(int argc, char **argv)
{
	(void)argv;
	return rust_legacy(argc) + rust_escaped(argc) + rust_closure(argc) +
	       rust_v0(argc) +
	       cxx_conversion(argc) + cxx_anonymous(argc) + cxx_call_op(argc) +
	       cxx_less(argc) + cxx_template(argc) + cxx_thunk(argc) +
	       cxx_clone(argc) + cxx_lambda(argc) + cxx_shift_op(argc) +
	       plain_c(argc);
}
