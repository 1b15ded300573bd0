# Darkroom: `make run` and `make test` set everything up on a fresh Debian 12
# machine, then run the main job or every test.

SWIFT ?= swift
# Debug builds optimise C code: the thumbnail path's decoders and
# resampler run thousands of images in the suite. (Not in Package.swift:
# SwiftPM refuses unsafe flags in a versioned dependency.)
DEBUG_FLAGS ?= -Xcc -O2
# The server's own build has every feature: faces (dlib) and video frames
# (FFmpeg) are package traits, off for a library user unless asked.
TRAITS ?= --traits Faces,Video
export PATH := $(PATH):/opt/swift/usr/bin
OUT ?= darkroom-out

.PHONY: run thumbnails test test-busy property matrix build release bootstrap bench bench-servers bench-mix soak bench-before-after clean fuzz sanitize crash-test consumer-test run-clean-room image image-slim image-test fleet-test kube-test docs

bootstrap:
	@scripts/bootstrap

build: bootstrap
	$(SWIFT) build $(TRAITS) $(DEBUG_FLAGS)

# The server alone needs less than the tests: no browser, nginx or .venv.
release:
	@scripts/bootstrap --server
	$(SWIFT) build $(TRAITS) -c release --product darkroom

# The main job: the image server and the gallery, on the bundled sample
# photos, at http://127.0.0.1:8080/ (PORT=... to change it).
PORT ?= 8080
run: release
	$(SWIFT) run $(TRAITS) -c release --skip-build darkroom serve --port $(PORT)

# Sepia thumbnails of the bundled sample photos, without the server.
thumbnails: release
	$(SWIFT) run $(TRAITS) -c release --skip-build darkroom process Sources/DarkroomServer/Resources/samples/photos/*.jpg \
		--resize 600 --filter sepia:0.8 -o $(OUT)/samples/
	@echo "Sepia thumbnails written to $(OUT)/samples/"

# The tests run where loopback is the only network (scripts/loopback-only).
test: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests $(DEBUG_FLAGS)
	scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --parallel
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

# The whole suite while other processes keep every core busy: no test may
# depend on how fast the machine is.
test-busy: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests $(DEBUG_FLAGS)
	scripts/busy scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --parallel

# The property test's long run (SurfacePropertyTests): random option
# families and formats on the costliest sources, a new seed each run unless
# DARKROOM_PROPERTY_SEED names one; `make test` runs 48 cases of a fixed seed.
PROPERTY_CASES ?= 600
property: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests $(DEBUG_FLAGS)
	DARKROOM_PROPERTY_SEED=$${DARKROOM_PROPERTY_SEED:-$$(date +%s)} DARKROOM_PROPERTY_CASES=$(PROPERTY_CASES) \
		scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --filter SurfacePropertyTests

# The correctness matrix in full (CorrectnessMatrixTests): every geometry
# family on every source format at 64 x 48, 2560 x 1600 and near the pixel
# limit, with and without a resize; `make test` runs the 2560 x 1600 slice.
matrix: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests $(DEBUG_FLAGS)
	DARKROOM_MATRIX=full scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --filter CorrectnessMatrixTests

# The container image, localhost/darkroom:latest (IMAGE=... to name it),
# built with podman from Debian's packages alone (scripts/image says how).
IMAGE ?= localhost/darkroom:latest
image:
	scripts/image $(IMAGE)

# The slim image, localhost/darkroom:slim (SLIM_IMAGE=...): no faces or
# video frames, so no dlib, BLAS, LAPACK or FFmpeg.
SLIM_IMAGE ?= localhost/darkroom:slim
image-slim:
	scripts/image --slim $(SLIM_IMAGE)

# The image run as an operator runs it: health check, gallery, an image
# from an origin on loopback, /metrics, a non-root user, SIGTERM.
image-test: image image-slim
	scripts/image-test $(IMAGE)
	scripts/image-test --slim $(SLIM_IMAGE)

# The image as a fleet: three replicas behind nginx (docs/nginx.conf) with
# the S3 result cache, the realistic mix played through a replica's death,
# a rolling restart and the store's outage (scripts/fleet-test says what it
# asserts); then the Kubernetes manifests played by podman (scripts/kube-test).
# Needs the image, so it is not part of `make test`.
fleet-test: image bootstrap
	.venv/bin/python scripts/fleet-test --image $(IMAGE)
	.venv/bin/python scripts/kube-test --image $(IMAGE)

kube-test: image bootstrap
	.venv/bin/python scripts/kube-test --image $(IMAGE)

# The documentation as one static site in $(OUT)/docs: the library's
# reference (DocC, with the photo-table article) and the guide made from
# README.md and docs/*.md (scripts/docs-site, which fails on a broken link).
docs: bootstrap
	@rm -rf $(OUT)/docs && mkdir -p $(OUT)
	$(SWIFT) package --allow-writing-to-directory $(OUT)/docs generate-documentation --target Darkroom \
		--disable-indexing --transform-for-static-hosting --output-path $(OUT)/docs
	.venv/bin/python scripts/docs-site --library-reference $(OUT)/docs
	@echo "Documentation written to $(OUT)/docs/: the guide at index.html, the library at documentation/darkroom/index.html (serve the folder, e.g. python3 -m http.server --directory $(OUT)/docs)"

# darkroom fetch and darkroom serve killed with SIGKILL at random moments
# on one cache, CRASH_KILLS times (`make test` runs 10), then everything
# the cache serves compared with a clean run's output.
CRASH_KILLS ?= 100
crash-test: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests $(DEBUG_FLAGS)
	DARKROOM_CRASH_KILLS=$(CRASH_KILLS) scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --filter 'KillTests|CrashSafetyTests'

# Seconds each fuzz target runs in `make test` (`make fuzz`: FUZZ_SECONDS).
TEST_FUZZ_SECONDS ?= 3

# Benchmarks print their figures; docs/benchmarks.md records them.
bench:
	@scripts/bootstrap --bench
	$(SWIFT) build $(TRAITS) -c release --product darkroom
	$(SWIFT) build $(TRAITS) -c release --product darkroom-bench
	.venv/bin/python bench/thumbnails.py --memory
	python3 bench/fetch.py
	python3 bench/book.py
	.build/release/darkroom-bench queue

# Darkroom against thumbor (one process, one per core, and one per core
# behind nginx), nginx's image_filter, a tuned nginx serving files, Pillow and
# pyvips in process and libjpeg-turbo's floors, on loopback, in BENCH_ROUNDS
# rounds (3) of BENCH_SECONDS per run (15), then the realistic mix: medians
# with ranges and CPU per answer, raw figures in bench/results/, tables
# written to docs/benchmarks.md. BEFORE=path/to/darkroom measures another
# build in the same run; PIN=1 puts each server on one core. About 80 minutes
# on two cores.
BENCH_ROUNDS ?= 3
bench-servers:
	@scripts/bootstrap --bench
	$(SWIFT) build $(TRAITS) -c release --product darkroom
	.venv/bin/python bench/servers.py --rounds $(BENCH_ROUNDS) $(if $(BEFORE),--before $(BEFORE)) $(if $(PIN),--pin) $(if $(ONLY),--only '$(ONLY)')

# The realistic mix alone (bench-servers ends with it): a fixed Zipf
# sequence of cached and uncached requests, darkroom against thumbor behind
# nginx's proxy_cache (bench/mix.py).
bench-mix:
	@scripts/bootstrap --bench
	$(SWIFT) build $(TRAITS) -c release --product darkroom
	.venv/bin/python bench/servers.py --mix --rounds $(BENCH_ROUNDS)

# This build against an earlier one (BEFORE=its release binary): several
# rounds of the servers' benchmark, the order alternating; medians and ranges.
bench-before-after:
	@test -n "$(BEFORE)" || { echo "BEFORE=path/to/an/earlier/release/darkroom"; exit 2; }
	@scripts/bootstrap --bench
	$(SWIFT) build $(TRAITS) -c release --product darkroom
	.venv/bin/python bench/before_after.py --before $(BEFORE)

# Cold load for SOAK_SECONDS (600): RSS after the first minute, at the end,
# and after the load stops.
SOAK_SECONDS ?= 600
soak:
	@scripts/bootstrap --bench
	$(SWIFT) build $(TRAITS) -c release --product darkroom
	.venv/bin/python bench/servers.py --soak $(SOAK_SECONDS)

clean:
	rm -rf .build $(OUT)

# libFuzzer harnesses (Sources/darkroom-fuzz), built with the fuzzer and the
# address sanitizer in a build folder of their own; FUZZ_SECONDS each (60).
FUZZ_SECONDS ?= 60
fuzz: bootstrap
	$(SWIFT) build $(TRAITS) --product darkroom-fuzz --scratch-path .build/fuzz \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -DDARKROOM_FUZZING -Xcc -fsanitize=fuzzer-no-link,address
	scripts/fuzz $(FUZZ_SECONDS)

# The test suite under the address sanitizer, then the thread sanitizer,
# each in a build folder of its own. Leak checking is off: what it reports
# at exit are the process-wide singletons (NIO's thread pools, libvips),
# kept for the life of the process by design, and a report fails the exit
# status of every darkroom command a test runs. DARKROOM_SANITIZER tells
# the tests that resident memory is the sanitizer's to judge. Under the
# thread sanitizer, locks are pthread mutexes it can see
# (DARKROOM_TSAN_LOCKS; see Sources/DarkroomImaging/Locked.swift).
# One test at a time: the sanitizers run code several times slower, and
# tests that bound how long a stop or a fault may take (the kill switch,
# origin faults, the soak's hang-ups) miss those bounds when two cores are
# shared by dozens of sanitized tests at once.
# UBSan for the C and C++ targets (Swift on Linux has no -sanitize=undefined;
# its checks are the compiler's own), its handlers in ASan's runtime.
UBSAN_C = -Xcc -fsanitize=undefined -Xcxx -fsanitize=undefined
# C and C++ at -O1, as the sanitizers' own guides advise: at -O0, dlib's
# face search (templates compiled into CFaces) ran a single test for up to
# 37 minutes under ASan.
SANITIZE_OPT = -Xcc -O1 -Xcxx -O1
# Under --sanitize=thread, Swift 6.3.1 reports a data-race error in
# swift-otel 1.6.0's batch processors that it does not report without the
# sanitizer; the thread-sanitizer build compiles in Swift 5 mode, where the
# compiler's concurrency checks warn (the sanitizer checks at run time).
TSAN_SWIFT = -Xswiftc -swift-version -Xswiftc 5
sanitize: bootstrap
	$(SWIFT) build $(TRAITS) --build-tests --sanitize=address $(UBSAN_C) $(SANITIZE_OPT) --scratch-path .build/asan
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 DARKROOM_SANITIZER=address \
		scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --no-parallel --sanitize=address $(UBSAN_C) $(SANITIZE_OPT) --scratch-path .build/asan
	$(SWIFT) build $(TRAITS) --build-tests --sanitize=thread $(SANITIZE_OPT) $(TSAN_SWIFT) --scratch-path .build/tsan -Xswiftc -DDARKROOM_TSAN_LOCKS
	DARKROOM_SANITIZER=thread scripts/loopback-only $(SWIFT) test $(TRAITS) --skip-build --no-parallel --sanitize=thread $(SANITIZE_OPT) $(TSAN_SWIFT) --scratch-path .build/tsan -Xswiftc -DDARKROOM_TSAN_LOCKS

# A package that depends on Darkroom through a tagged git URL with `from:`,
# built in release mode, thumbnails a corpus photo: in a clean room (a
# container from the debootstrapped Debian base with only Swift's needs,
# libvips and the fast path's codecs; dlib only for the Faces half).
consumer-test:
	scripts/image --base-only
	scripts/consumer-test-clean-room

# `make run` on a fresh machine, timed: a clone in a container from the same
# base with only Swift's own needs installed; prints the time until the
# gallery answers and checks that no test or benchmark tool came with it.
run-clean-room:
	scripts/image --base-only
	scripts/run-clean-room
