/* proto_cmp.h - field-by-field equality of decoded messages, shared by the
 * unit tests and the fuzz target so both mean the same thing by "round
 * trips". Doubles are compared by their bits: -0.0 must stay -0.0. */
#ifndef SPATE_PROTO_CMP_H
#define SPATE_PROTO_CMP_H

#include <stdbool.h>
#include <string.h>

#include "proto/spate_proto.h"

static inline bool cmp_str(const struct spate_str *a, const struct spate_str *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

static inline bool cmp_f64(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

static inline bool cmp_event(const struct spate_raw_event *a, const struct spate_raw_event *b)
{
	if (a->id != b->id || a->lon != b->lon || a->lat != b->lat || a->n_kw != b->n_kw ||
	    a->n_attr != b->n_attr || a->n_kw > SPATE_KW_MAX_HARD ||
	    a->n_attr > SPATE_ATTR_MAX_HARD)
		return false;
	for (uint32_t i = 0; i < a->n_kw; i++)
		if (!cmp_str(&a->kw[i], &b->kw[i]))
			return false;
	for (uint32_t i = 0; i < a->n_attr; i++)
		if (!cmp_str(&a->attr[i].name, &b->attr[i].name) ||
		    !cmp_f64(a->attr[i].value, b->attr[i].value))
			return false;
	return true;
}

static inline bool cmp_sub(const struct spate_raw_sub *a, const struct spate_raw_sub *b)
{
	if (a->id != b->id || a->rect.min_lon != b->rect.min_lon ||
	    a->rect.min_lat != b->rect.min_lat || a->rect.max_lon != b->rect.max_lon ||
	    a->rect.max_lat != b->rect.max_lat || a->dest.ipv4 != b->dest.ipv4 ||
	    a->dest.port != b->dest.port || a->n_kw != b->n_kw || a->n_cons != b->n_cons ||
	    a->n_kw > SPATE_KW_MAX_HARD || a->n_cons > SPATE_CONS_MAX_HARD)
		return false;
	for (uint32_t i = 0; i < a->n_kw; i++)
		if (!cmp_str(&a->kw[i], &b->kw[i]))
			return false;
	for (uint32_t i = 0; i < a->n_cons; i++)
		if (!cmp_str(&a->cons[i].name, &b->cons[i].name) ||
		    a->cons[i].op != b->cons[i].op || !cmp_f64(a->cons[i].value, b->cons[i].value))
			return false;
	return true;
}

static inline bool cmp_notify(const struct spate_notify *a, const struct spate_notify *b)
{
	if (a->event_id != b->event_id || a->n_subs != b->n_subs)
		return false;
	for (uint16_t i = 0; i < a->n_subs; i++)
		if (spate_notify_id(a, i) != spate_notify_id(b, i))
			return false;
	return true;
}

/* Two decoded messages of the same type carry the same fields. */
static inline bool cmp_msg(const struct spate_msg *a, const struct spate_msg *b)
{
	if (a->type != b->type || a->id != b->id)
		return false;
	switch (a->type) {
	case SPATE_MSG_EVENT:
		return cmp_event(&a->u.ev, &b->u.ev);
	case SPATE_MSG_SUB_ADD:
		return cmp_sub(&a->u.sub, &b->u.sub);
	case SPATE_MSG_SUB_DEL:
		return true;
	case SPATE_MSG_ACK:
	case SPATE_MSG_NACK:
		return a->u.ack.req_type == b->u.ack.req_type && a->u.ack.code == b->u.ack.code &&
		       a->u.ack.req_seq == b->u.ack.req_seq && a->u.ack.id == b->u.ack.id;
	case SPATE_MSG_NOTIFY:
		return cmp_notify(&a->u.notify, &b->u.notify);
	}
	return false;
}

#endif
