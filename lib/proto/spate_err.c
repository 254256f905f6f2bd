/* spate_err.c - names and reasons of the error table in spate_err.h. */
#include "proto/spate_err.h"

static const char *const err_names[SPATE_E__COUNT] = {
#define SPATE_ERR_NAME(name, val, str) [val] = #name,
	SPATE_FOREACH_ERR(SPATE_ERR_NAME)
#undef SPATE_ERR_NAME
};

static const char *const err_reasons[SPATE_E__COUNT] = {
#define SPATE_ERR_REASON(name, val, str) [val] = str,
	SPATE_FOREACH_ERR(SPATE_ERR_REASON)
#undef SPATE_ERR_REASON
};

const char *spate_err_name(int code)
{
	if (code < 0)
		code = -code;
	if (code >= SPATE_E__COUNT || err_names[code] == 0)
		return "?";
	return err_names[code];
}

const char *spate_err_reason(int code)
{
	if (code < 0)
		code = -code;
	if (code >= SPATE_E__COUNT || err_reasons[code] == 0)
		return "unknown error";
	return err_reasons[code];
}
