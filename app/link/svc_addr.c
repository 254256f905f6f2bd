/* svc_addr.c - the service addresses served now (svc_addr.h). */
#include "link/svc_addr.h"

static uint32_t served[SVC_ADDR_MAX]; /* 0: a free slot */

void svc_addr_set(uint32_t ip, int on)
{
	int free_slot = -1;

	for (int i = 0; i < SVC_ADDR_MAX; i++) {
		uint32_t v = __atomic_load_n(&served[i], __ATOMIC_RELAXED);
		if (v == ip) {
			if (!on)
				__atomic_store_n(&served[i], 0, __ATOMIC_RELEASE);
			return;
		}
		if (v == 0 && free_slot < 0)
			free_slot = i;
	}
	if (on && free_slot >= 0)
		__atomic_store_n(&served[free_slot], ip, __ATOMIC_RELEASE);
}

int svc_addr_has(uint32_t ip)
{
	for (int i = 0; i < SVC_ADDR_MAX; i++)
		if (ip != 0 && __atomic_load_n(&served[i], __ATOMIC_ACQUIRE) == ip)
			return 1;
	return 0;
}

#define SVC_MEMO 4096

/* client ip << 32 | port << 16 | served index + 1 (0: its own address) */
static uint64_t memo[SVC_MEMO];

static uint32_t memo_slot(uint32_t ip, uint16_t port)
{
	return ((ip * 2654435761u) ^ (port * 40503u)) & (SVC_MEMO - 1);
}

void svc_addr_note(uint32_t client_ip, uint16_t client_port, uint32_t dst)
{
	uint64_t idx = 0;

	for (int i = 0; dst != 0 && i < SVC_ADDR_MAX; i++)
		if (__atomic_load_n(&served[i], __ATOMIC_RELAXED) == dst) {
			idx = (uint64_t)i + 1;
			break;
		}
	uint64_t v = (uint64_t)client_ip << 32 | (uint64_t)client_port << 16 | idx;
	uint64_t *slot = &memo[memo_slot(client_ip, client_port)];
	if (__atomic_load_n(slot, __ATOMIC_RELAXED) != v)
		__atomic_store_n(slot, v, __ATOMIC_RELAXED);
}

uint32_t svc_addr_src_for(uint32_t client_ip, uint16_t client_port)
{
	uint64_t v = __atomic_load_n(&memo[memo_slot(client_ip, client_port)], __ATOMIC_RELAXED);

	if (v >> 32 != client_ip || (uint16_t)(v >> 16) != client_port || (v & 0xffff) == 0)
		return 0;
	return __atomic_load_n(&served[(v & 0xffff) - 1], __ATOMIC_ACQUIRE);
}
