/* tests/unit/autorate_cfg.h: the autorate block the controller's tests start from (the config
 * language's defaults), shared by test_autorate and test_autorate_sim. */
#ifndef GW_TEST_AUTORATE_CFG_H
#define GW_TEST_AUTORATE_CFG_H

#include "config/config.h"

#define MBIT(x) ((x) * 125000.0)

__attribute__((unused))
static struct gw_autorate_cfg ar_cfg(double min_mbit, double base_mbit, double max_mbit)
{
	struct gw_autorate_cfg a = {
		.present = true, .min = (uint64_t)MBIT(min_mbit), .base = (uint64_t)MBIT(base_mbit),
		.max = (uint64_t)MBIT(max_mbit), .delay_threshold_us = 10000, .window = 6,
		.bloat_samples = 3, .cut = 0.9, .raise = 1.04, .load_threshold = 0.75,
		.hold_us = 500000, .raise_every_us = 200000, .idle_after_us = 5000000,
	};
	return a;
}

#endif
