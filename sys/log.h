/* sys/log.h: one line per event on stderr (systemd's journal takes it from there). */
#ifndef GW_LOG_H
#define GW_LOG_H

enum gw_log_level { GW_LOG_ERR = 3, GW_LOG_WARNING = 4, GW_LOG_INFO = 6, GW_LOG_DEBUG = 7 };

void gw_log_set_verbose(int v);
int gw_log_verbose(void);
void gw_log(enum gw_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
