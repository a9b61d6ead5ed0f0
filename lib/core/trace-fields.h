/* SPDX-License-Identifier: MIT */
/*
 * Tracepoint fields as labels, shared by the perf.data reader (fields
 * decoded with libtraceevent) and the perf script reader (fields read
 * back from the text perf printed), so both name them alike.
 */
#ifndef PROFKIT_TRACE_FIELDS_H
#define PROFKIT_TRACE_FIELDS_H

#include <stddef.h>
#include <sys/types.h>

#include "internal.h"

/*
 * The label key of a field of an event ("sched_wakeup", without its
 * system): its name, or "EVENT.NAME" when a sample's own labels (pid,
 * tid, comm, cpu, trace) have that name. 0 when out of memory.
 */
pk_str pki_trace_field_key(struct pk_profile *p, const char *event,
			   size_t event_len, const char *name, size_t len);

/*
 * Append to (*labels)[n..] a "trace" label holding text, the fields as
 * perf script prints them after the event ("prev_comm=x prev_pid=7 ...",
 * "fd: 0x00000001, count: 0x00000013", "0x13"), and a label per field
 * the text names. event is "system:name". Returns the new count, or -1
 * when out of memory.
 */
ssize_t pki_trace_text_labels(struct pk_profile *p, const char *event,
			      size_t event_len, const char *text, size_t len,
			      struct pk_label **labels, size_t *cap, size_t n);

#endif
