/* tests/unit/test_cmpout.c: the bench's output files (bench/outfile.c): written
 * whole or not at all, 0644, no temporary left on any failure (a file-size limit stands in
 * for a full disk: tests/netns/test_cmpout.sh fills a real one), the old file intact; a
 * directory that is not the caller's own or that others may write refused; links not
 * followed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <json-c/json.h>
#include "bench/outfile.h"
#include "tap.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((f = fopen(p, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

/* The file's whole text (at most 255 bytes), or "" when there is none. */
static const char *text_of(const char *name)
{
	static char buf[256];
	char p[256];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	buf[0] = '\0';
	if ((fd = open(p, O_RDONLY)) < 0)
		return buf;
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
	return buf;
}

static bool exists(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return lstat(p, &st) == 0;
}

static unsigned mode_of(const char *name)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return stat(p, &st) == 0 ? st.st_mode & 07777 : 0;
}

static int write_one(const char *name, const char *text, bool commit, char *err, size_t errlen)
{
	char p[256];
	struct bench_out w;
	FILE *f;
	int r;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if ((r = bench_out_begin(&w, p, err, errlen)))
		return r;
	if (!(f = bench_out_stdio(&w))) {
		bench_out_abort(&w);
		return -errno;
	}
	fputs(text, f);
	if (!commit) {
		bench_out_abort(&w);
		return 0;
	}
	return bench_out_commit(&w, err, errlen);
}

/* In a child with a 4 KiB file-size limit (SIGXFSZ ignored: the write fails with EFBIG):
 * 64 KiB through stdio, then as JSON; the child says what each returned through a pipe, as
 * its own stdout is a file the limit would cut too. */
static void full_disk(void)
{
	int pfd[2], r[2] = { 1, 1 };
	char err[2][512] = { "", "" };
	pid_t pid;

	if (pipe(pfd) < 0 || (pid = fork()) < 0) {
		CHECK(0, "a child for the file-size limit");
		return;
	}
	if (pid == 0) {
		struct rlimit rl = { 4096, 4096 };
		static char big[65536];
		struct json_object *o = json_object_new_object();
		char p[256];

		close(pfd[0]);
		signal(SIGXFSZ, SIG_IGN);
		memset(big, 'x', sizeof(big) - 1);
		json_object_object_add(o, "big", json_object_new_string(big));
		setrlimit(RLIMIT_FSIZE, &rl);
		r[0] = write_one("results.json", big, true, err[0], sizeof(err[0]));
		snprintf(p, sizeof(p), "%s/report.json", dir);
		r[1] = bench_out_json(p, o, err[1], sizeof(err[1]));
		if (write(pfd[1], r, sizeof(r)) != sizeof(r) || write(pfd[1], err, sizeof(err)) < 0)
			_exit(1);
		_exit(0);
	}
	close(pfd[1]);
	if (read(pfd[0], r, sizeof(r)) != sizeof(r) || read(pfd[0], err, sizeof(err)) < 0)
		r[0] = r[1] = 1;
	close(pfd[0]);
	waitpid(pid, NULL, 0);
	CHECK(r[0] == -EFBIG && strstr(err[0], "results.json: cannot write: File too large"),
	      "past the limit: the commit fails and says so (%d: %s)", r[0], err[0]);
	CHECK(!strcmp(text_of("results.json"), "old results\n"), "the old file intact");
	CHECK(!exists("results.json.tmp"), "no results.json.tmp left");
	CHECK(r[1] == -EFBIG && strstr(err[1], "report.json: cannot write"),
	      "JSON past the limit fails the same (%d: %s)", r[1], err[1]);
	CHECK(!strcmp(text_of("report.json"), "old report\n") && !exists("report.json.tmp"),
	      "... the old report.json intact, no report.json.tmp");
}

int main(void)
{
	char err[4600], p[256], target[128];
	int r;

	snprintf(dir, sizeof(dir), "/tmp/gwcmpout.XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "a scratch directory");
		return tap_done();
	}
	/* written */
	r = write_one("results.json", "new results\n", true, err, sizeof(err));
	CHECK(r == 0 && !strcmp(text_of("results.json"), "new results\n"),
	      "written and renamed into place (%d %s)", r, r ? err : "");
	CHECK(mode_of("results.json") == 0644, "0644 whatever the umask (0%o)",
	      mode_of("results.json"));
	CHECK(!exists("results.json.tmp"), "no temporary left");
	/* given up */
	put("results.json", "old results\n");
	r = write_one("results.json", "half a fi", false, err, sizeof(err));
	CHECK(r == 0 && !strcmp(text_of("results.json"), "old results\n") &&
	      !exists("results.json.tmp"), "aborted: the old file intact, no temporary");
	/* a full disk, as a file-size limit */
	put("report.json", "old report\n");
	full_disk();
	/* a temporary a killed run left: replaced, and a link there not followed */
	put("results.json.tmp", "stale");
	r = write_one("results.json", "after a crash\n", true, err, sizeof(err));
	CHECK(r == 0 && !strcmp(text_of("results.json"), "after a crash\n") &&
	      !exists("results.json.tmp"), "a stale temporary is replaced (%d %s)", r,
	      r ? err : "");
	put("elsewhere", "untouched\n");
	snprintf(target, sizeof(target), "%s/elsewhere", dir);
	snprintf(p, sizeof(p), "%s/results.json.tmp", dir);
	if (symlink(target, p) < 0)
		CHECK(0, "a link at the temporary's name");
	r = write_one("results.json", "linked\n", true, err, sizeof(err));
	CHECK(r == 0 && !strcmp(text_of("elsewhere"), "untouched\n") &&
	      !strcmp(text_of("results.json"), "linked\n"),
	      "a link at the temporary's name is not followed");
	/* the directory: the caller's own, writable by nobody else, not a link */
	chmod(dir, 0775);
	r = write_one("results.json", "x", true, err, sizeof(err));
	CHECK(r == -EPERM && strstr(err, "writable by its group (mode 0775)"),
	      "a directory its group may write: refused (%s)", err);
	chmod(dir, 0757);
	r = write_one("results.json", "x", true, err, sizeof(err));
	CHECK(r == -EPERM && strstr(err, "writable by others (mode 0757)"),
	      "a directory others may write: refused (%s)", err);
	chmod(dir, 0700);
	CHECK(!strcmp(text_of("results.json"), "linked\n") && !exists("results.json.tmp"),
	      "... and nothing written there");
	/* a link is followed to its real directory once (realpath), and that is checked */
	snprintf(p, sizeof(p), "%s/open", dir);
	mkdir(p, 0755);
	chmod(p, 0777);
	snprintf(p, sizeof(p), "%s/link", dir);
	if (symlink("open", p) < 0)
		CHECK(0, "a link to a directory");
	snprintf(p, sizeof(p), "%s/link/results.json", dir);
	r = write_one(p + strlen(dir) + 1, "x", true, err, sizeof(err));
	CHECK(r == -EPERM && strstr(err, "/open: writable by others (mode 0777)"),
	      "a link to a directory others may write: that directory refused (%s)", err);
	/* the directories on the way: root's or the caller's, or sticky */
	snprintf(p, sizeof(p), "%s/open/inner", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/open/inner/results.json", dir);
	r = write_one(p + strlen(dir) + 1, "x", true, err, sizeof(err));
	CHECK(r == -EPERM && strstr(err, "/open on the way to it is writable by group or others "
				     "(mode 0777)"),
	      "a directory on the way that others may write: refused (%s)", err);
	snprintf(p, sizeof(p), "%s/open", dir);
	chmod(p, 01777);
	snprintf(p, sizeof(p), "%s/open/inner/results.json", dir);
	r = write_one(p + strlen(dir) + 1, "in a sticky one\n", true, err, sizeof(err));
	CHECK(r == 0 && !strcmp(text_of("open/inner/results.json"), "in a sticky one\n"),
	      "... unless it is sticky, as /tmp is (%d %s)", r, r ? err : "");
	if (geteuid() == 0) {
		snprintf(p, sizeof(p), "%s/open", dir);
		chmod(p, 0755);
		if (chown(p, 65534, 65534) < 0)
			CHECK(0, "chown");
		snprintf(p, sizeof(p), "%s/open/inner/results.json", dir);
		r = write_one(p + strlen(dir) + 1, "x", true, err, sizeof(err));
		CHECK(r == -EPERM && strstr(err, "/open on the way to it is owned by uid 65534"),
		      "a directory on the way another user owns: refused (%s)", err);
		snprintf(p, sizeof(p), "%s/open/results.json", dir);
		r = write_one(p + strlen(dir) + 1, "x", true, err, sizeof(err));
		CHECK(r == -EPERM && strstr(err, "owned by uid 65534, not by this user (uid 0)"),
		      "a directory another user owns: refused (%s)", err);
	} else {
		printf("skip - directories another user owns: needs root to make one\n");
	}
	snprintf(p, sizeof(p), "rm -rf '%s'", dir);
	if (system(p) != 0)
		CHECK(0, "removing the scratch directory");
	return tap_done();
}
