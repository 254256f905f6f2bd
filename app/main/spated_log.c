/* spated_log.c - registers the "spate" log type (spated_log.h). */
#include "main/spated_log.h"

RTE_LOG_REGISTER(spated_logtype, spate, INFO);
