// SPDX-License-Identifier: GPL-2.0
/* -m esp, revision 0 (net/netfilter/xt_esp.c). */
#define _GNU_SOURCE

#include <errno.h>
#include <linux/in.h>
#include <linux/netfilter.h>
#include <linux/netfilter/xt_esp.h>

#include "codegen.h"
#include "context.h"
#include "match.h"

static int esp_check(struct context *ctx, const struct rule *r, const void *data)
{
	const struct xt_esp *esp = data;

	(void)r;
	if (esp->invflags & ~XT_ESP_INV_MASK) {
		bf_dbg(ctx, "match 'esp': unknown invflags 0x%x", esp->invflags);
		return -EINVAL;
	}
	return 0;
}

/*
 * esp_mt(): non-first fragments never match, a packet without the 8 bytes
 * of an ESP header is a hotdrop, then spi_match() on the SPI (bytes 0-3).
 */
static int esp_gen(struct codegen *cg, const struct rule *rule, const struct match *m)
{
	const struct xt_esp *esp = m->data;

	(void)rule;
	cg_first_fragment(cg, false);
	cg_need_l4(cg, false);
	cg_l4_u32_range(cg, 0, esp->spis[0], esp->spis[1], esp->invflags & XT_ESP_INV_SPI);
	return cg->err;
}

static uint32_t esp_needs(const void *data)
{
	(void)data;
	return CG_NEED_ESP;
}

const struct match_ops esp_match_ops = {
	.id = { .name = "esp", .revision = 0, .families = EXT_IPV4 | EXT_IPV6 },
	.size = XT_ALIGN(sizeof(struct xt_esp)),
	.usersize = sizeof(struct xt_esp),
	.proto = IPPROTO_ESP,
	.check = esp_check,
	.gen = esp_gen,
	.needs = esp_needs,
};
