#!/bin/sh
# A recording converted where its program is not, with what `perf archive`
# packed of it on the recording machine unpacked into ~/.debug: profkit
# reads perf's build-id cache as perf does (.build-id/xx/rest, a link to
# ../../PATH/BUILD-ID, holding elf and, for the kernel, kallsyms) and
# names every frame as perf script does with the same $HOME. Recorded
# here and now; the program is removed once archived. Without the
# archive, the one summary names the program and the share of samples
# perf lists with frames in it.
. "${top_srcdir:-.}/tests/test-subr.sh"

command -v perf >/dev/null 2>&1 || skip_all "no perf (linux-perf)"
command -v bzip2 >/dev/null 2>&1 || skip_all "no bzip2 (perf archive's tarball)"
plan 6

prog=$tmpdir/prog/c-fp
data=$tmpdir/c-fp.data
rec_home=$tmpdir/recording-home	# perf record fills its ~/.debug
view_home=$tmpdir/viewing-home	# only the archive's ~/.debug
mkdir -p "$tmpdir/prog" "$rec_home" "$view_home/.debug" || exit 99
cp testdata/bin/c-fp "$prog" || exit 99
c_fp_id=2890d92fe4cd60efeaa6b2a36912f117c14eff25

if ! HOME=$rec_home perf record -q -e cpu-clock -F 2000 -g -o "$data" \
	"$prog" 40 >/dev/null 2>"$tmpdir/record.err"; then
	diag_file "$tmpdir/record.err"
	skip_all "perf cannot record here"
fi

# perf archive FILE writes FILE.tar.bz2 from the recording's ~/.debug
HOME=$rec_home perf archive "$data" >/dev/null 2>"$tmpdir/archive.err"
tar tjf "$data.tar.bz2" >"$tmpdir/archived" 2>>"$tmpdir/archive.err"
# the kernel only when it was sampled (perf_event_paranoid > 1: user only)
kernel_id=$(HOME=$rec_home perf buildid-list --with-hits -i "$data" 2>/dev/null |
	sed -n 's/^\([0-9a-f]*\) \[kernel.kallsyms\]$/\1/p')
if grep -qx ".build-id/28/${c_fp_id#28}" "$tmpdir/archived" &&
   grep -qx "${prog#/}/$c_fp_id/elf" "$tmpdir/archived" &&
   { [ -z "$kernel_id" ] ||
     grep -qx "\[kernel.kallsyms\]/$kernel_id/kallsyms" "$tmpdir/archived"; }; then
	pass "perf archive packed the program${kernel_id:+ and the kernel's symbols}"
else
	fail "perf archive packed the program${kernel_id:+ and the kernel's symbols}"
	diag_file "$tmpdir/archived"
	diag_file "$tmpdir/archive.err"
fi
rm -f "$prog"
tar xjf "$data.tar.bz2" -C "$view_home/.debug" || exit 99

# perf's own view with that ~/.debug: the program's functions named
HOME=$view_home perf script -i "$data" 2>/dev/null |
	sed 's/+0x[0-9a-f]* (/ (/' >"$tmpdir/perf.txt"
if grep -q "hot_loop ($prog)" "$tmpdir/perf.txt"; then
	pass "perf script names the removed program's frames from the archive"
else
	fail "perf script names the removed program's frames from the archive"
	diag_file "$tmpdir/perf.txt"
fi
HOME=$view_home profkit-convert --to=perf-script "$data" \
	>"$tmpdir/profkit.txt" 2>"$tmpdir/warnings"
same_output "profkit names every frame as perf script does, from the archive" \
	"$tmpdir/perf.txt" "$tmpdir/profkit.txt"
if grep -q "$prog" "$tmpdir/warnings"; then
	fail "and no warning about the program"
	diag_file "$tmpdir/warnings"
else
	pass "and no warning about the program"
fi

# without the archive: the program in the summary, with perf's share
empty_home=$tmpdir/empty-home
mkdir -p "$empty_home" || exit 99
HOME=$empty_home perf script -F comm,pid,tid,time,event,ip,dso -i "$data" \
	>"$tmpdir/dsos.txt" 2>/dev/null
want=$(awk -v dsos="$prog" -f tests/samples-share.awk "$tmpdir/dsos.txt")
HOME=$empty_home profkit-convert --to=folded -o "$tmpdir/out" "$data" \
	2>"$tmpdir/warnings"
if grep -qxF "$(printf '  %6s  %s: not found' "$want" "$prog")" "$tmpdir/warnings"; then
	pass "without it: the program not found, in $want of the samples"
else
	fail "without it: the program not found, in $want of the samples"
	diag_file "$tmpdir/warnings"
fi
grep -qF "run \`perf archive FILE\` there and unpack FILE.tar.bz2 into ~/.debug here" \
	"$tmpdir/warnings" && pass "and perf archive is suggested" ||
	fail "and perf archive is suggested"
finish
