/* SPDX-License-Identifier: MIT */
/*
 * Demangling (lib/symbolize/demangle.c, rust-v0.c): Rust v0 names
 * against the recommended demanglings of the rustc book's "v0 Symbol
 * Format" (each example of it), hostile v0 names (loops of back
 * references, deep nesting, huge numbers, cut names: each must come
 * back NULL, quickly), legacy Rust and the names profilers print half
 * demangled, C++ PLT stubs.
 *
 *   t-demangle                  the unit tests (TAP)
 *   t-demangle --filter [STYLE] each line of standard input as the
 *                               symbolizer shows it (STYLE: perf, the
 *                               default, pprof, full, none), as c++filt
 *                               filters (tests/run-names.sh)
 *   t-demangle --printed        each line as a name perf script printed
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symbolize/demangle.h"
#include "symbolize/rust-v0.h"

#include "tap.h"

struct example {
	const char *mangled, *want;
};

/* The rustc book's examples, each with the demangling it recommends. */
static const struct example spec[] = {
	{ "_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
	  "<std::path::PathBuf>::new" },
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ "_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "<mycrate::Example>::foo" },
	{ "_RNvXCs15kBYyAo9fc_7mycrateNtB2_7ExampleNtB2_5Trait3foo",
	  "<mycrate::Example as mycrate::Trait>::foo" },
	{ "_RNvMCs7qp2U7fqm6G_7mycrateNtB2_7Example3foo", "<mycrate::Example>::foo" },
	{ "_RNvMs_Cs7qp2U7fqm6G_7mycrateNtB4_7Example3bar", "<mycrate::Example>::bar" },
	{ "_RNvYNtCs15kBYyAo9fc_7mycrate7ExampleNtB4_5Trait7exampleB4_",
	  "<mycrate::Example as mycrate::Trait>::example" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4main0B3_", "mycrate::main::{closure#0}" },
	{ "_RNCNvCsgStHSCytQ6I_7mycrate4mains_0B3_", "mycrate::main::{closure#1}" },
	{ "_RINvCsgStHSCytQ6I_7mycrate7examplelKj1_EB2_", "mycrate::example::<i32, 1>" },
	{ "_RNvNtNtCsgOH4LzxkuMq_7mycrateu8gdel_5qa6escher4bach",
	  "mycrate::g\xc3\xb6" "del::escher::bach" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleFG0_RL1_hRL0_tEuEB2_",
	  "mycrate::example::<for<'a, 'b> fn(&'a u8, &'b u16)>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleKy12345678_EB2_",
	  "mycrate::example::<305419896>" },
	{ "_RNvNvMCsd9PVOYlP1UU_7mycrateINtB4_7ExamplepKpE3foo14EXAMPLE_STATIC",
	  "<mycrate::Example<_, _>>::foo::EXAMPLE_STATIC" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleAtj8_EB2_", "mycrate::example::<[u16; 8]>" },
	{ "_RINvCs7qp2U7fqm6G_7mycrate7exampleNtB2_7ExampleBw_EB2_",
	  "mycrate::example::<mycrate::Example, mycrate::Example>" },
	{ "_RINvMsY_NtCseXNvpPnDBDp_3std4pathNtB6_4Path3neweECs7qp2U7fqm6G_7mycrate",
	  "<std::path::Path>::new::<str>" },
	{ "_RNvNvNvCs7qp2U7fqm6G_7mycrate7EXAMPLE7___getit5___KEY$tlv$init",
	  "mycrate::EXAMPLE::__getit::__KEY" },
	/* its Punycode table: føø, α_ω, 铁锈, 🤦, ρυστ */
	{ "_RNvCs15kBYyAo9fc_7mycrateu6f_5gaa", "mycrate::f\xc3\xb8\xc3\xb8" },
	{ "_RNvCs15kBYyAo9fc_7mycrateu7___ylb7e", "mycrate::\xce\xb1_\xcf\x89" },
	{ "_RNvCs15kBYyAo9fc_7mycrateu6n84amf", "mycrate::\xe9\x93\x81\xe9\x94\x88" },
	{ "_RNvCs15kBYyAo9fc_7mycrateu4fq9h", "mycrate::\xf0\x9f\xa4\xa6" },
	{ "_RNvCs15kBYyAo9fc_7mycrateu6_2xaedc", "mycrate::\xcf\x81\xcf\x85\xcf\x83\xcf\x84" },
	/* the rest of the grammar, written from its rules */
	{ "_RINvCs1_1c1fINtB2_1SRhQL_tPmOxEE", "c::f::<c::S<&u8, &mut u16, *const u32, *mut i64>>" },
	{ "_RINvCs1_1c1fTlETlbEE", "c::f::<(i32,), (i32, bool)>" },
	{ "_RINvCs1_1c1fSeE", "c::f::<[str]>" },
	{ "_RINvCs1_1c1fFUKCmEuE", "c::f::<unsafe extern \"C\" fn(u32)>" },
	{ "_RINvCs1_1c1fFK12system_win64EbE", "c::f::<extern \"system-win64\" fn() -> bool>" },
	{ "_RINvCs1_1c1fDNtB2_5TraitEL_E", "c::f::<dyn c::Trait>" },
	{ "_RINvCs1_1c1fDG_INtB2_5TraitRL0_hEp4ItemmNtB2_4SendEL_E",
	  "c::f::<dyn for<'a> c::Trait<&'a u8, Item = u32> + c::Send>" },
	{ "_RINvCs1_1c1fKanff_Kb0_Kc41_Kc27_Kca_Khff_EB2_",
	  "c::f::<-255, false, 'A', '\\'', '\\n', 255>" },
	{ "_RINvCs1_1c1fKo1000000000000000000000000_EB2_",
	  "c::f::<0x1000000000000000000000000>" },
	{ "_RNSNvCs1_1c1fs0_6vtable", "c::f::{shim:vtable#2}" },
	{ "_RNvCs1_1c1f.llvm.1234567", "c::f" },
};

/* Names to come back NULL (kept mangled), in bounded time. */
static const char *const hostile[] = {
	"_R", "_RN", "_RNv", "_RNvC", "_RC3ab", "_RC", "_RB_", "_RNvB_3foo",
	"_RC99999999999999999999999a", "_RNvCs1_1c", "_RXB_", "_Rabc",
	"_R0NvC1a1b",			/* an encoding version: undefined */
	"_RNvC1a1b\xc3\xa9",		/* not ASCII */
	"_RNvC1a3a;b",			/* not an identifier's characters */
	"_RINvC1a1fKb2_E", "_RINvC1a1fKcd800_E", "_RINvC1a1fKe0_E",
	"_RINvC1a1fL0_E",		/* a lifetime no binder bound */
	"_RINvC1a1fFGzzzzzzzzzz_EuE",	/* more lifetimes than the name */
	"_RNvC1au3aaa1b",		/* punycode, then the name cut */
	"_RNvC1a1bC1c",			/* a second crate printed nowhere: fine? */
};

static void test_spec(void)
{
	size_t i;

	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		char *got = sym_rust_v0_demangle(spec[i].mangled);

		is_str(got ? got : "(null)", spec[i].want, "v0: %s", spec[i].mangled);
		free(got);
	}
}

/* A name that doubles at each back reference: 2^40 parts if followed
 * blindly; the output limit stops it. */
static char *doubling(void)
{
	static char name[4096];
	size_t at[64], n, i;

	strcpy(name, "_RINvC1a1fTTTTlE");
	n = strlen(name);
	at[0] = 14;	/* the 'l' */
	for (i = 1; i < 40 && n < sizeof(name) - 64; i++) {
		n += (size_t)snprintf(name + n, sizeof(name) - n, "TB%zx_B%zx_E", at[i - 1], at[i - 1]);
		at[i] = 0;
	}
	snprintf(name + n, sizeof(name) - n, "EE");
	return name;
}

static void test_hostile(void)
{
	char deep[16384], *got;
	size_t i;
	clock_t start;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		got = sym_rust_v0_demangle(hostile[i]);
		if (strcmp(hostile[i], "_RNvC1a1bC1c") == 0) {
			/* the instantiating crate: parsed, not shown */
			is_str(got ? got : "(null)", "a::b", "v0 with an instantiating crate");
		} else {
			ok(got == NULL, "hostile v0 kept mangled: %s", hostile[i]);
			if (got)
				diag("  got '%s'", got);
		}
		free(got);
	}
	/* nesting far past any real name's */
	strcpy(deep, "_R");
	for (i = 0; i < 3000; i++)
		strcat(deep, "NvNv");
	strcat(deep, "C1a");
	got = sym_rust_v0_demangle(deep);
	ok(got == NULL, "3000 nested paths: past the depth limit");
	free(got);
	/* every path a back reference to the one before */
	strcpy(deep, "_RNvC1a1b");
	for (i = 0; i < 500; i++)
		snprintf(deep + strlen(deep), sizeof(deep) - strlen(deep), "B%zx_", i);
	got = sym_rust_v0_demangle(deep);
	ok(got == NULL, "a chain of back references, trailing");
	free(got);
	start = clock();
	got = sym_rust_v0_demangle(doubling());
	ok(got == NULL || strlen(got) <= 64 * 1024, "doubling back references: bounded output");
	ok(clock() - start < 2 * CLOCKS_PER_SEC, "doubling back references: bounded time");
	free(got);
}

struct styled {
	enum pk_demangle style;
	const char *mangled, *want;
};

static const struct styled styled[] = {
	/* v0: the same in every style but none */
	{ PK_DEMANGLE_SHORT, "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ PK_DEMANGLE_SIMPLE, "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ PK_DEMANGLE_FULL, "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ PK_DEMANGLE_NONE, "_RNvCs15kBYyAo9fc_7mycrate7example", NULL },
	/* PLT stubs: the name before "@plt" demangled, as perf shows it */
	{ PK_DEMANGLE_SHORT,
	  "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc@plt",
	  "std::__cxx11::basic_string<char, std::char_traits<char>, "
	  "std::allocator<char> >::_M_construct@plt" },
	{ PK_DEMANGLE_SHORT, "_Znam@plt", "operator new[]@plt" },
	{ PK_DEMANGLE_FULL, "_ZdaPv@plt", "operator delete[](void*)@plt" },
	{ PK_DEMANGLE_SHORT, "_RNvCs15kBYyAo9fc_7mycrate7example@plt", "mycrate::example@plt" },
	{ PK_DEMANGLE_SHORT, "memcmp@plt", NULL },
	/* pprof's names: template arguments dropped, with the space an
	 * operator's had before them (pprof -raw of libstdc++'s) */
	{ PK_DEMANGLE_SIMPLE,
	  "_ZStlsIcSt11char_traitsIcEERSt13basic_ostreamIT_T0_ES6_St8_SetfillIS3_E",
	  "std::operator<<" },
	{ PK_DEMANGLE_SIMPLE, "_ZNSt13basic_ostreamIwSt11char_traitsIwEElsEe",
	  "std::basic_ostream::operator<<" },
	/* legacy Rust: the hash dropped, escapes undone */
	{ PK_DEMANGLE_SHORT,
	  "_ZN5rusty14GcBox$LT$T$GT$3new28_$u7b$$u7b$closure$u7d$$u7d$17hf8df545291847ee8E",
	  "rusty::GcBox<T>::new::{{closure}}" },
};

static void test_styles(void)
{
	size_t i;

	for (i = 0; i < sizeof(styled) / sizeof(styled[0]); i++) {
		char *got = sym_demangle(styled[i].style, styled[i].mangled);

		if (styled[i].want)
			is_str(got ? got : "(null)", styled[i].want, "style %d: %s",
			       (int)styled[i].style, styled[i].mangled);
		else
			ok(!got, "style %d: %s stays", (int)styled[i].style,
			   styled[i].mangled);
		free(got);
	}
}

/* Names perf script printed, as profkit finishes them. */
static const struct example printed[] = {
	/* perf left it half demangled (inferno's example, its hash) */
	{ "GcBox$LT$T$GT$::new::_$u7b$$u7b$closure$u7d$$u7d$::h0123456789abcdef",
	  "GcBox<T>::new::{{closure}}" },
	{ "_$LT$grep_searcher..searcher..glue..ReadByLine$LT$$u27$s$C$$u20$M$C$$u20$R$C$$u20$S$GT$$GT$::run::h30ecedc997ad7e32",
	  "<grep_searcher::searcher::glue::ReadByLine<'s, M, R, S>>::run" },
	{ "core::fmt::write::h0123456789abcdef", "core::fmt::write" },
	/* or mangled: Rust's names are finished, C++'s stay as printed */
	{ "_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example" },
	{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
	{ "_ZN10JavaThread3runEv", NULL },
	{ "main", NULL },
	{ "f::h0123456789abcdeg", NULL },
	{ "f::h0123456789abcde", NULL },
};

static void test_printed(void)
{
	size_t i;

	for (i = 0; i < sizeof(printed) / sizeof(printed[0]); i++) {
		const char *s = printed[i].mangled;
		char *got = sym_demangle_printed(PK_DEMANGLE_SHORT, s, strlen(s));

		if (printed[i].want)
			is_str(got ? got : "(null)", printed[i].want, "printed: %s", s);
		else
			ok(!got, "printed: %s stays", s);
		free(got);
	}
}

static int filter(int argc, char **argv, int printed_names)
{
	static const char *const styles[] = { "perf", "full", "none", "pprof" };
	enum pk_demangle style = PK_DEMANGLE_SHORT;
	char line[65536];
	size_t i;

	for (i = 0; argc > 2 && i < 4; i++)
		if (strcmp(argv[2], styles[i]) == 0)
			style = (enum pk_demangle)i;
	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strcspn(line, "\n");
		char *d;

		line[n] = '\0';
		d = printed_names ? sym_demangle_printed(style, line, n) :
		    sym_demangle(style, line);
		puts(d ? d : line);
		free(d);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--filter") == 0)
		return filter(argc, argv, 0);
	if (argc > 1 && strcmp(argv[1], "--printed") == 0)
		return filter(argc, argv, 1);
	test_spec();
	test_hostile();
	test_styles();
	test_printed();
	return done_testing();
}
