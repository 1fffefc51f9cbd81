# gatewayd: build, test, install. `make deps` (root) installs what the build and tests need.
VERSION := 0.1.0
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/gatewayd
SYSCONFDIR ?= /etc
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
UNITDIR ?= /lib/systemd/system
GENERATORDIR ?= /lib/systemd/system-generators
# the system users (systemd/gatewayd.sysusers): where systemd-sysusers reads a package's own
SYSUSERSDIR ?= /usr/lib/sysusers.d
# where CNI plugins live on Debian (a runtime's cni_plugin_dirs; /opt/cni/bin by convention)
CNIDIR ?= /usr/lib/cni
DESTDIR ?=

BUILD ?= build
CC ?= cc
PKGS := libnl-3.0 libnl-route-3.0 libconfig libmnl libnftnl json-c libmicrohttpd zlib libseccomp
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wformat=2 -Wmissing-prototypes -Werror
comma := ,
SAN_FLAGS := $(if $(SAN),-fsanitize=address$(comma)undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SAN_FLAGS) -I. $(PKG_CFLAGS) \
	-DGW_VERSION=\"$(VERSION)\" -D_GNU_SOURCE -MMD -MP
LDLIBS_ALL = $(PKG_LIBS) -lcrypt -pthread -lm

# Each folder is its own archive, linked from the top layer down; LAYERS (below) says which
# folders' headers each one may include, and every build checks it. The libraries first, in
# the order of the layers, then the programs: gatewayd (the daemon), cni (the CNI plugin),
# bench (the comparison bench).
# (a list reversed: the archives are linked from the top layer down)
reverse = $(if $(1),$(call reverse,$(wordlist 2,$(words $(1)),$(1))) $(firstword $(1)))
LIB_FOLDERS := sys qdisc config tree probe load webui
FOLDERS := gatewayd cni bench $(call reverse,$(LIB_FOLDERS))
lib_of = $(BUILD)/lib/$(subst /,_,$(1)).a
# the programs' mains are not in their folders' archives
MAINS := gatewayd/main.c cni/main.c bench/main.c
src_of = $(filter-out $(MAINS),$(sort $(wildcard $(1)/*.c)))
LIBS := $(foreach f,$(FOLDERS),$(call lib_of,$(f)))
# each program links its own folder and the libraries: the daemon holds no bench code, the
# bench (gatewayd-bench, which `gatewayd --compare` runs) none of the daemon's folder
LIB_ARCHIVES := $(foreach f,$(call reverse,$(LIB_FOLDERS)),$(call lib_of,$(f)))
DAEMON_LIBS := $(call lib_of,gatewayd) $(LIB_ARCHIVES)
BENCH_LIBS := $(call lib_of,bench) $(LIB_ARCHIVES)
# the CNI plugin: the daemon's tree code without the daemon
CNI_LIBS := $(foreach f,cni tree config qdisc sys,$(call lib_of,$(f)))
ALL_SRC := $(foreach f,$(FOLDERS),$(call src_of,$(f)))
ALL_HDR := $(foreach f,$(FOLDERS),$(wildcard $(f)/*.h))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
# the page's files, embedded into the binary as C arrays (webui/embed.sh: od and awk only)
PAGE_FILES := webui/page/index.html webui/page/app.js webui/page/style.css \
	webui/page/favicon.svg
ASSET_OBJ := $(BUILD)/obj/gen/webui_assets.o
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# Who may include whom. A folder's files include their own folder's headers and those named
# here (a folder, or one header); anything else stops the build. The daemon (gatewayd/, its
# command line included) never includes the bench, which is a program of its own; qdisc/ and
# sys/ include nothing above them; config/ only qdisc/'s model and kind tables; webui/ renders
# snapshots and knows neither the config parser nor the kernel layer; the CNI plugin (cni/)
# builds trees as the daemon does, without the daemon. No file is exempt (LAYER_EXEMPT).
LAYERS := \
	sys: \
	qdisc: \
	config:qdisc/model.h,qdisc/qdisc.h,qdisc/kind.h \
	tree:sys,config,qdisc \
	probe:sys,config,qdisc/model.h,webui/snapshot.h \
	load:sys,probe,config,qdisc/model.h,webui/snapshot.h \
	webui:sys,qdisc/kind.h,qdisc/qdisc.h \
	gatewayd:sys,qdisc,config,tree,probe,load,webui \
	cni:sys,tree,config,qdisc \
	bench:sys,qdisc,config,tree,probe,load,webui/snapshot.h,webui/benchfile.h,webui/benchrows.h
LAYER_EXEMPT :=
# gatewayd/ holds the daemon alone; what is a library lives in the layer it belongs to
GATEWAYD_MAX_FILES := 15

.PHONY: all router deps deps-pkgs users check-deps test test-unit test-netns test-uml test-webui asan bench bench-bins \
	install clean demo fuzz fuzz-bins layers man-lint deb screenshot docs-check design-check \
	kinds-check copies-check

all: $(BUILD)/gatewayd $(BUILD)/gatewayd-cni $(BUILD)/gatewayd-bench $(BUILD)/gatewayd-uml-exec \
	docs-check

# a router's binary: the daemon alone, as build/gatewayd is (the bench is gatewayd-bench, a
# program of its own); kept under this name for the size docs/design.md measures
router: $(BUILD)/gatewayd-router

$(BUILD)/layers.ok: $(ALL_SRC) $(ALL_HDR) $(MAINS) Makefile
	@mkdir -p $(dir $@)
	@bad=0; for f in $(filter-out $(LAYER_EXEMPT) Makefile,$^); do \
		d=$${f%/*}; allow=; \
		for l in $(LAYERS); do [ "$${l%%:*}" = "$$d" ] && allow=$$(echo "$${l#*:}" | tr , ' '); done; \
		for inc in $$(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$$f"); do \
			ok=0; [ "$${inc%/*}" = "$$d" ] && ok=1; \
			for a in $$allow; do case $$inc in "$$a"|"$$a"/*.h) ok=1 ;; esac; done; \
			[ $$ok = 1 ] || { echo "$$f: includes $$inc, which $$d/ may not (Makefile LAYERS)"; bad=1; }; \
		done; \
	done; [ $$bad = 0 ]
	@n=$(words $(wildcard gatewayd/*.c gatewayd/*.h)); [ $$n -le $(GATEWAYD_MAX_FILES) ] || { \
		echo "gatewayd/ holds $$n files, at most $(GATEWAYD_MAX_FILES): a library goes to its layer"; exit 1; }
	@touch $@

layers: $(BUILD)/layers.ok

# The docs checks (tests/docs/), run by every build as LAYERS is, so the docs cannot go stale:
# every source file is named in docs/design.md's layout (design-check); every list of qdisc
# kinds the prose marks is the registry's, as a program built on qdisc/registry.c lists them
# (kinds-check); the README's copy of the demo's table is docs/demo-table.md (copies-check).
# tests/docs/test_checks.sh shows each one failing.
DOC_FOLDERS := $(LIB_FOLDERS) gatewayd cni bench
DOC_FILES := $(shell find $(DOC_FOLDERS) -type f 2>/dev/null)
KIND_PROSE := $(wildcard *.md docs/*.md webui/*.md man/*.[1-9])
docs-check: design-check kinds-check copies-check

$(BUILD)/design.ok: docs/design.md tests/docs/check_layout.sh $(DOC_FILES)
	@mkdir -p $(dir $@)
	@bash tests/docs/check_layout.sh docs/design.md $(DOC_FOLDERS)
	@touch $@

design-check: $(BUILD)/design.ok

$(BUILD)/list-kinds: tests/docs/list_kinds.c $(call lib_of,qdisc)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS_ALL)

$(BUILD)/kinds.ok: $(BUILD)/list-kinds tests/docs/check_kinds.sh $(KIND_PROSE)
	@bash tests/docs/check_kinds.sh $(BUILD)/list-kinds $(KIND_PROSE)
	@touch $@

kinds-check: $(BUILD)/kinds.ok

$(BUILD)/copies.ok: README.md docs/demo-table.md tests/docs/copies.sh
	@mkdir -p $(dir $@)
	@bash tests/docs/copies.sh check README.md
	@touch $@

copies-check: $(BUILD)/copies.ok

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/gen/webui_assets.c: $(PAGE_FILES) webui/embed.sh
	@mkdir -p $(dir $@)
	sh webui/embed.sh $@ $(PAGE_FILES)

$(ASSET_OBJ): $(BUILD)/gen/webui_assets.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# one archive per folder (the page's assets go with webui/)
define folder_lib
$(call lib_of,$(1)): $(patsubst %.c,$(BUILD)/obj/%.o,$(call src_of,$(1))) $(if $(filter webui,$(1)),$(ASSET_OBJ))
	@mkdir -p $$(dir $$@)
	@rm -f $$@
	ar rcs $$@ $$^
endef
$(foreach f,$(FOLDERS),$(eval $(call folder_lib,$(f))))

$(BUILD)/gatewayd $(BUILD)/gatewayd-router: $(BUILD)/layers.ok $(BUILD)/obj/gatewayd/main.o \
		$(DAEMON_LIBS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter-out $(BUILD)/layers.ok,$^) $(LDLIBS_ALL)

# the comparison bench; it starts the gatewayd beside it
$(BUILD)/gatewayd-bench: $(BUILD)/layers.ok $(BUILD)/obj/bench/main.o $(BENCH_LIBS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter-out $(BUILD)/layers.ok,$^) $(LDLIBS_ALL)

# the chained CNI plugin, run by container runtimes (gatewayd-cni(8))
$(BUILD)/gatewayd-cni: $(BUILD)/layers.ok $(BUILD)/obj/cni/main.o $(CNI_LIBS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(filter-out $(BUILD)/layers.ok,$^) $(LDLIBS_ALL)

# how bench/uml/gatewayd-uml starts linux.uml on a CPU whose XSAVE area UML cannot hand back
$(BUILD)/gatewayd-uml-exec: bench/uml/gatewayd-uml-exec.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< -lseccomp

# the tests named test_fake_* run the daemon's tree code against the in-memory kernel
FAKE_BIN := $(filter $(BUILD)/tests/test_fake_%,$(UNIT_BIN))
FAKE_OBJ := $(BUILD)/obj/tests/unit/fake_kernel.o $(BUILD)/obj/tests/unit/fake_nft.o
$(FAKE_BIN): $(BUILD)/tests/%: tests/unit/%.c $(FAKE_OBJ) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(FAKE_OBJ) $(LIBS) $(LDLIBS_ALL)

# the tests that run the load engine, the sink and the load test on a fake clock
CLOCK_BIN := $(BUILD)/tests/test_loadgen $(BUILD)/tests/test_sinkaccess
CLOCK_OBJ := $(BUILD)/obj/tests/unit/fake_clock.o
$(CLOCK_BIN): $(BUILD)/tests/%: tests/unit/%.c $(CLOCK_OBJ) $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(CLOCK_OBJ) $(LIBS) $(LDLIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS_ALL)

# serves a synthetic, changing snapshot for tests/webui (not test_*: the runners skip it)
$(BUILD)/tests/webui-fake-server: tests/webui/fake-source.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS_ALL)

unit-bins: $(UNIT_BIN) $(BUILD)/tests/webui-fake-server

# the benchmarks' own programs, built from the daemon's archives (tests/bench/*.c)
BENCH_BIN := $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(sort $(wildcard tests/bench/*.c)))
$(BUILD)/bench/%: tests/bench/%.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIBS) $(LDLIBS_ALL)

bench-bins: $(BENCH_BIN)

# the HTTP server and the page in headless Chromium, against the fake server
test-webui: all unit-bins
	tests/run "BUILD=$(BUILD) bash tests/webui/test_http.sh" \
		"BUILD=$(BUILD) bash tests/webui/test_http_lan.sh" \
		"BUILD=$(BUILD) bash tests/webui/test_page.sh"

# the README's screenshot of the status page (docs/status-page.png), taken again by the page's
# test against the fake snapshot server
screenshot: all unit-bins
	tests/run "BUILD=$(BUILD) bash tests/webui/test_page.sh"
	cp $(BUILD)/screenshots/status-page.png docs/status-page.png

# Debian packages: build, tests (netns, UML, traffic) and benches.
DEB_PKGS := build-essential pkg-config libnl-3-dev libnl-route-3-dev libmnl-dev libnftnl-dev \
	libconfig-dev libmicrohttpd-dev libjson-c-dev iproute2 nftables iperf3 user-mode-linux \
	kmod jq procps psmisc iputils-ping prometheus chromium curl python3 systemd libseccomp2 libseccomp-dev wrk \
	clang libclang-rt-14-dev irtt groff-base dpkg-dev lintian openssl zlib1g-dev flent \
	python3-matplotlib containernetworking-plugins podman runc

# Install every missing Debian package (needs root and the package mirror), then the system
# users the daemon and its web process run as, so the suites find them on a fresh machine.
deps: deps-pkgs
	@$(MAKE) --no-print-directory users

deps-pkgs:
	@missing=$$(for p in $(DEB_PKGS); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null \
		| grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
		case " $$missing " in *" irtt "*) \
			: "irtt is for the benchmark only: its package starts a server on every address"; \
			systemctl disable --now irtt.service >/dev/null 2>&1 || true ;; esac; \
	else echo "all dependencies present"; fi

# The users gatewayd and gatewayd-web (gatewayd(8) PRIVILEGES), from systemd/gatewayd.sysusers,
# where either is missing (root only; systemd-sysusers leaves existing ones as they are).
users:
	@if getent passwd gatewayd >/dev/null && getent passwd gatewayd-web >/dev/null; then \
		echo "users gatewayd and gatewayd-web present"; \
	elif [ "$$(id -u)" -ne 0 ]; then \
		echo "users gatewayd and gatewayd-web missing: \`sudo make users\` makes them"; \
	else systemd-sysusers $(CURDIR)/systemd/gatewayd.sysusers; fi

# Every suite, plain and under ASan+UBSan, with one closing "N passed, N failed" line.
# the three builds use every core (JOBS); the suites then run in tests/run-all's two lanes
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(MAKE) -j$(JOBS) all unit-bins
	$(MAKE) -j$(JOBS) BUILD=build-asan SAN=1 all unit-bins
	@if $(FUZZ_OK); then $(MAKE) -j$(JOBS) fuzz-bins; else echo "no clang with libFuzzer: fuzzers skipped"; fi
	tests/run-all

test-unit: all unit-bins
	tests/run $(UNIT_BIN)

# the man pages render without warnings (also a suite of `make test`)
man-lint:
	tests/run "bash tests/man/test_lint.sh"

bench: deps all bench-bins
	tests/bench/run-all

# the comparison bench on its defaults (gatewayd --compare), results in DEMO_OUT
demo: deps all
	tests/demo.sh

install: all
	install -D -m 0755 $(BUILD)/gatewayd $(DESTDIR)$(SBINDIR)/gatewayd
	install -D -m 0755 $(BUILD)/gatewayd-cni $(DESTDIR)$(CNIDIR)/gatewayd-cni
	# the comparison bench, which `gatewayd --compare` runs, and its User-Mode Linux helper:
	# found at ../libexec/gatewayd/ from the binary
	install -D -m 0755 $(BUILD)/gatewayd-bench $(DESTDIR)$(LIBEXECDIR)/gatewayd-bench
	install -D -m 0755 bench/uml/gatewayd-uml $(DESTDIR)$(LIBEXECDIR)/gatewayd-uml
	install -D -m 0755 bench/uml/gatewayd-uml-init $(DESTDIR)$(LIBEXECDIR)/gatewayd-uml-init
	install -D -m 0755 $(BUILD)/gatewayd-uml-exec $(DESTDIR)$(LIBEXECDIR)/gatewayd-uml-exec
	install -d $(DESTDIR)$(UNITDIR)
	sed -e 's|/usr/local/sbin|$(SBINDIR)|g' -e 's|/etc/gatewayd|$(SYSCONFDIR)/gatewayd|g' \
		systemd/gatewayd.service >$(DESTDIR)$(UNITDIR)/gatewayd.service
	# the unit's address allow lists, from the config, at boot and at each daemon-reload
	install -d $(DESTDIR)$(GENERATORDIR)
	sed -e 's|/usr/local/sbin|$(SBINDIR)|g' -e 's|/etc/gatewayd|$(SYSCONFDIR)/gatewayd|g' \
		systemd/gatewayd-generator >$(DESTDIR)$(GENERATORDIR)/gatewayd-generator
	chmod 0755 $(DESTDIR)$(GENERATORDIR)/gatewayd-generator
	install -d $(DESTDIR)$(DATADIR)/doc/gatewayd/examples
	install -m 0644 config/examples/*.conf $(DESTDIR)$(DATADIR)/doc/gatewayd/examples/
	install -d $(DESTDIR)$(DATADIR)/doc/gatewayd/examples/cni
	install -m 0644 docs/cni/*.conflist $(DESTDIR)$(DATADIR)/doc/gatewayd/examples/cni/
	install -D -m 0644 man/gatewayd.8 $(DESTDIR)$(MANDIR)/man8/gatewayd.8
	install -D -m 0644 man/gatewayd-cni.8 $(DESTDIR)$(MANDIR)/man8/gatewayd-cni.8
	install -D -m 0644 man/gatewayd.conf.5 $(DESTDIR)$(MANDIR)/man5/gatewayd.conf.5
	# the users gatewayd and gatewayd-web, made at once where this is the system itself (a
	# package does it in its postinst: debian/postinst)
	install -D -m 0644 systemd/gatewayd.sysusers $(DESTDIR)$(SYSUSERSDIR)/gatewayd.conf
	if [ -z "$(DESTDIR)" ]; then \
		if command -v systemd-sysusers >/dev/null; then \
			systemd-sysusers $(SYSUSERSDIR)/gatewayd.conf; \
		else echo "no systemd-sysusers: make the system users gatewayd and gatewayd-web" \
			"by hand (gatewayd(8) PRIVILEGES)"; fi; fi

# The Debian package, $(BUILD)/gatewayd_$(VERSION)-REVISION_ARCH.deb (the revision from
# debian/changelog): debian/mkdeb.sh builds again in $(DEB_BUILD) with dpkg-buildflags'
# hardening, stages `make install PREFIX=/usr`, adds the default config (a conffile), the
# maintainer scripts and Depends from dpkg-shlibdeps, and packs it with dpkg-deb.
DEB_BUILD := build-deb
deb:
	MAKE="$(MAKE)" VERSION=$(VERSION) BUILD=$(BUILD) DEB_BUILD=$(DEB_BUILD) sh debian/mkdeb.sh

# libFuzzer targets (tests/fuzz/fuzz_NAME.c -> build-fuzz/fuzz_NAME): the project's sources
# compiled again with clang, coverage and ASan+UBSan in their own tree, so the builds above do
# not change. `make fuzz` runs each for FUZZ_SECONDS over its committed corpus
# (tests/fuzz/run.sh; new inputs go to a scratch directory, crashes to build-fuzz/artifacts/).
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_OK = command -v $(FUZZ_CC) >/dev/null 2>&1 && \
	test -f "$$($(FUZZ_CC) -print-file-name=libclang_rt.fuzzer-$$(uname -m).a)"
FUZZ_NAMES := $(sort $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BIN := $(FUZZ_NAMES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = -std=gnu11 -O1 -g $(FUZZ_SAN) -I. $(PKG_CFLAGS) -DGW_VERSION=\"$(VERSION)\" \
	-D_GNU_SOURCE -MMD -MP
# main.c and loop.c are the daemon's start-up and event loop, which no fuzzer reaches (and
# clang 14 refuses loop.c's declaration after a label, a C23 feature gcc accepts)
FUZZ_SRC := $(filter-out gatewayd/loop.c,$(ALL_SRC))
FUZZ_OBJ := $(FUZZ_SRC:%.c=$(FUZZ_BUILD)/obj/%.o) $(FUZZ_BUILD)/obj/gen/webui_assets.o

# clang warns where gcc does not: the daemon's files are gcc's to keep clean, so here they get
# the project's warnings without -Werror, less three clang-only ones they have today (NLMSG_OK's
# int length, a va_list format, u32 match's flexible array); the fuzzers' own files: -Werror
FUZZ_QUIET := -Wno-sign-compare -Wno-format-nonliteral -Wno-gnu-variable-sized-type-not-at-end
$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(filter-out -Werror,$(WARN)) $(FUZZ_QUIET) -fsanitize=fuzzer-no-link \
		-c -o $@ $<

$(FUZZ_BUILD)/gen/webui_assets.c: $(PAGE_FILES) webui/embed.sh
	@mkdir -p $(dir $@)
	sh webui/embed.sh $@ $(PAGE_FILES)

$(FUZZ_BUILD)/obj/gen/webui_assets.o: $(FUZZ_BUILD)/gen/webui_assets.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_BUILD)/libgw-fuzz.a: $(FUZZ_OBJ)
	@rm -f $@
	ar rcs $@ $^

# an archive: fuzz_http.c includes webui/http.c, and then http.o is never pulled in
$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_BUILD)/libgw-fuzz.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) -fsanitize=fuzzer -o $@ $< $(FUZZ_BUILD)/libgw-fuzz.a \
		$(LDLIBS_ALL)

fuzz-bins: $(FUZZ_BIN)

# seeds for fuzz_netlink from a real kernel (tests/fuzz/make-netlink-seeds.sh, root): a plain
# program on the normal build, not a fuzzer
$(FUZZ_BUILD)/netlink_seeds: tests/fuzz/netlink_seeds.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS_ALL)
# and for fuzz_nft and fuzz_peer (tests/fuzz/make-nft-seeds.sh, root)
$(FUZZ_BUILD)/nft_seeds: tests/fuzz/nft_seeds.c $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $(filter-out %.h,$^) $(LDLIBS_ALL)

fuzz: fuzz-bins
	@fail=0; for t in $(FUZZ_NAMES); do \
		FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $$t || fail=1; \
	done; exit $$fail

clean:
	rm -rf build build-asan $(FUZZ_BUILD) $(DEB_BUILD)

-include $(shell find $(BUILD) $(FUZZ_BUILD) -name '*.d' -type f 2>/dev/null)
