/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of a memo's followers (core/memo.h): the two texts that
 * came after each, the newest first, or one for each way it is followed,
 * and pki_memo_id_after's lookup that compares that one first.
 */
#include <string.h>

#include "core/memo.h"

#include "tap.h"

static uint32_t id_of(struct pki_memo *m, const char *text)
{
	return pki_memo_id(m, text, strlen(text));
}

static void test_followers(void)
{
	struct pki_memo m = { 0 };
	uint32_t a = id_of(&m, "a"), b = id_of(&m, "b"), c = id_of(&m, "c");
	uint32_t d = id_of(&m, "d");

	ok(!pki_memo_follower(&m, a, 0) && !pki_memo_follower(&m, a, 1),
	   "a new text has no followers");
	pki_memo_follow(&m, a, b);
	pki_memo_follow(&m, a, b);
	ok(pki_memo_follower(&m, a, 0) == b && !pki_memo_follower(&m, a, 1),
	   "a follower met twice is kept once");
	pki_memo_follow(&m, a, c);
	ok(pki_memo_follower(&m, a, 0) == c && pki_memo_follower(&m, a, 1) == b,
	   "the newest first, the one before it second");
	pki_memo_follow(&m, a, b);
	ok(pki_memo_follower(&m, a, 0) == b && pki_memo_follower(&m, a, 1) == c,
	   "the second met again is the newest");
	pki_memo_follow(&m, a, d);
	ok(pki_memo_follower(&m, a, 0) == d && pki_memo_follower(&m, a, 1) == b,
	   "a third new one drops the oldest");
	pki_memo_follow(&m, a, 0);
	pki_memo_follow(&m, 0, a);
	ok(pki_memo_follower(&m, a, 0) == d && pki_memo_follower(&m, a, 1) == b,
	   "no id follows nothing, nothing is followed");
	ok(!pki_memo_follower(&m, b, 0), "followers are each text's own");
	pki_memo_free(&m);
}

static void test_id_after(void)
{
	struct pki_memo m = { 0 };
	uint32_t a = id_of(&m, "main"), b = id_of(&m, "work"), c;

	is_int(pki_memo_id_after(&m, 0, 0, "work", 4), b, "nothing before: looked up");
	is_int(pki_memo_id_after(&m, a, 0, "work", 4), b, "a known text after another");
	is_int(pki_memo_follower(&m, a, 0), b, "...is its follower of that way");
	c = pki_memo_id_after(&m, a, 1, "idle", 4);
	ok(c && c != a && c != b, "a new text after it another way: a new id");
	ok(pki_memo_follower(&m, a, 0) == b && pki_memo_follower(&m, a, 1) == c,
	   "...its follower of the other way, the first kept");
	is_int(pki_memo_id_after(&m, a, 0, "work", 4), b, "each way's follower found");
	is_int(pki_memo_id_after(&m, a, 1, "idle", 4), c, "...both");
	is_int(pki_memo_id_after(&m, a, 0, "wor", 3), id_of(&m, "wor"),
	       "a follower's prefix is another text");
	is_int(pki_memo_follower(&m, a, 0), id_of(&m, "wor"), "...the new follower");
	is_int(pki_memo_follower(&m, a, 1), c, "...the other way's kept");
	is_int(pki_memo_id_after(&m, a, 0, "main", 4), a, "a text after itself");
	is_int(pki_memo_follower(&m, a, 0), a, "...follows itself");
	pki_memo_free(&m);
}

int main(void)
{
	test_followers();
	test_id_after();
	return done_testing();
}
