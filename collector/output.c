/*
 * Writes records as bpftrace's `-f json` output: `{"type": "value", "data": [..]}` with the
 * elements joined by "," and strings JSON-escaped except bytes >= 0x80, which go raw (the reader
 * decodes the file as latin1 and bpftraceStringBytes turns each character back into its byte).
 */
#include <linux/types.h>
#include <string.h>
#include "output.h"
#include "records.h"

static const char PREFIX[] = "{\"type\": \"value\", \"data\": [";

static void put_string(FILE *out, const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	fputc('"', out);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

static void put_numbers(FILE *out, int type, const __s64 *v, int count)
{
	fputs(PREFIX, out);
	fprintf(out, "%d", type);
	for (int i = 0; i < count; i++)
		fprintf(out, ",%lld", (long long)v[i]);
}

int write_record(FILE *out, const void *data, size_t size)
{
	const struct rec_head *h = data;
	if (size < sizeof(*h))
		return -1;
	switch (h->type) {
	case REC_PART: {
		const struct rec_part *r = data;
		if (size < sizeof(*r))
			return -1;
		fprintf(out, "%s%d,%llu,%llu,", PREFIX, REC_PART, (unsigned long long)r->key, (unsigned long long)r->t);
		put_string(out, r->s, sizeof(r->s));
		break;
	}
	case REC_CALL: {
		const struct rec_call *r = data;
		if (size < sizeof(*r))
			return -1;
		put_numbers(out, REC_CALL, r->v, CALL_NUMBERS);
		fputc(',', out);
		put_string(out, r->s, sizeof(r->s));
		break;
	}
	case REC_NET: {
		const struct rec_net *r = data;
		if (size < sizeof(*r))
			return -1;
		put_numbers(out, REC_NET, r->v, 12);
		fputc(',', out);
		put_string(out, r->comm, sizeof(r->comm));
		break;
	}
	case REC_FORK: {
		const struct rec_fork *r = data;
		if (size < sizeof(*r))
			return -1;
		put_numbers(out, REC_FORK, r->v, 5);
		fputc(',', out);
		put_string(out, r->comm, sizeof(r->comm));
		break;
	}
	case REC_EXIT: {
		const struct rec_exit *r = data;
		if (size < sizeof(*r))
			return -1;
		put_numbers(out, REC_EXIT, r->v, 3);
		fputc(',', out);
		put_string(out, r->comm, sizeof(r->comm));
		break;
	}
	default:
		return -1;
	}
	fputs("]}\n", out);
	return 0;
}

void write_clock(FILE *out, int type, uint64_t t)
{
	fprintf(out, "%s%d,%llu]}\n", PREFIX, type, (unsigned long long)t);
}

void write_lost(FILE *out, uint64_t count)
{
	fprintf(out, "{\"type\": \"lost_events\", \"data\": {\"events\": %llu}}\n", (unsigned long long)count);
}
