/* SPDX-License-Identifier: MIT */
/*
 * Rust's v0 symbol names ("_R...", RFC 2603; the rustc book's "v0
 * Symbol Format" is its current text), demangled as rustfilt prints
 * them and perf shows them: the path with its generic arguments, no
 * crate disambiguators, no instantiating crate, no vendor suffix
 * (".llvm.123"), constants without their type ("checksum::<8>").
 */
#ifndef PROFKIT_SYMBOLIZE_RUST_V0_H
#define PROFKIT_SYMBOLIZE_RUST_V0_H

/*
 * The demangled name (malloc'd), or NULL when mangled is not a v0 name
 * this demangler reads whole (or out of memory). Hostile names cost
 * bounded time, stack and memory: recursion, back references and the
 * output are limited, and nothing is read past the name's end.
 */
char *sym_rust_v0_demangle(const char *mangled);

#endif
