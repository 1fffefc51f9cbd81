/* sys/forked.h: what a process forked from the daemon to be another program or process (the
 * web launcher, the web process, a helper) does first, so that nothing of the daemon's stays
 * reachable from it: the default signals, a session of its own, no fd but those it keeps. */
#ifndef GW_FORKED_H
#define GW_FORKED_H

/* An empty signal mask and every handler the default (the daemon's signalfd mask and
 * handlers are not the new process's). */
void gw_forked_signals(void);
/* A session of its own (no controlling terminal: nothing to type into with TIOCSTI, no SIGINT
 * or SIGHUP from one) and stdin and stdout from /dev/null; stderr stays the log. 0 or -errno. */
int gw_forked_detach(void);
/* Close every fd but stdio and keep's (n of them, sorted here; -1s are skipped): the daemon's
 * netlink and raw sockets must not stay open in a process that parses requests. */
void gw_forked_close_except(int *keep, int n);

#endif
