# Setup, build and test in two commands: `make run` and `make test`.
# Each configuration builds in its own folder: build/ (Release), build/debug (ASan+UBSan).
BUILD_DIR ?= build
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
SCENARIO ?= scenarios/default.json
T ?=

.PHONY: all deps configure build run test validate soak debug tsan bench clean

all: build

deps:
	@scripts/install-deps

configure: deps
	@test -f $(BUILD_DIR)/CMakeCache.txt || cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=Release

build: configure
	@cmake --build $(BUILD_DIR) -j 2

# Builds only the binary it runs; `make test` builds the rest.
run: configure
	@cmake --build $(BUILD_DIR) -j 2 --target exsim
	./$(BUILD_DIR)/exsim simulate $(SCENARIO)

# T=<doctest filter> runs a subset of the unit tests.
test: build
ifeq ($(T),)
	cd $(BUILD_DIR) && ctest --output-on-failure --timeout 600
else
	./$(BUILD_DIR)/exsim_tests --test-case='$(T)'
endif

# The model against the real exchange on this machine (scenarios/validation,
# calibrating around the runs); exits 1 when an error exceeds suite.json's thresholds.
validate: build
	./$(BUILD_DIR)/exsim validate scenarios/validation --repeat 3 \
	  --json $(BUILD_DIR)/validation.json --markdown $(BUILD_DIR)/validation.md

# The timed tests 10 times on a fresh clone, 3 more with a core kept busy, and
# 3 full .ci/run on fresh clones (scripts/ci-soak; about an hour).
soak: deps
	scripts/ci-soak

debug: deps
	@test -f $(BUILD_DIR)/debug/CMakeCache.txt || cmake -S . -B $(BUILD_DIR)/debug $(GENERATOR) -DCMAKE_BUILD_TYPE=Debug -DEXSIM_SANITIZE=ON
	@cmake --build $(BUILD_DIR)/debug -j 2
	# Sanitizers slow the code many times over: the timing-bound tests (the accuracy gate, IMPALA-1638
	# beside iperf3) and the long reproductions (the same figures as Release) run in `make test` only.
	cd $(BUILD_DIR)/debug && ctest --output-on-failure --timeout 900 -E 'validation-suite|reproduce'

# ThreadSanitizer build in build/tsan: the multi-threaded transport tests.
tsan: deps
	@test -f $(BUILD_DIR)/tsan/CMakeCache.txt || cmake -S . -B $(BUILD_DIR)/tsan $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-fsanitize=thread -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread
	@cmake --build $(BUILD_DIR)/tsan -j 2 --target exsim_tests
	# Not the allocation test: it replaces the allocators TSan must own, and its slow consumer is not
	# slow beside senders that TSan slows tenfold (its deferral precondition fails).
	./$(BUILD_DIR)/tsan/exsim_tests --test-suite='*' --source-file='*transport*' --source-file-exclude='*allocation_test*'

# Benchmarks print numbers and assert nothing. The peers (real RPC frameworks
# doing IMPALA-1638's transfer, one call at a time over 0.2 ms and IMPALA-5528's
# many small calls beside exsim) build in a project of their own.
bench: build
	@scripts/install-deps --bench
	./$(BUILD_DIR)/exsim_bench_sim --repeat 5
	./$(BUILD_DIR)/exsim_bench_sim bench/scenarios/many-hosts.json --repeat 3
	taskset -c 0 ./$(BUILD_DIR)/exsim_bench_sim scenarios/production-20-hosts.json --count --repeat 5
	./$(BUILD_DIR)/exsim_bench_transport
	taskset -c 0 ./$(BUILD_DIR)/exsim_bench_serialize_split
	@test -f $(BUILD_DIR)/peers/CMakeCache.txt || cmake -S bench/peers -B $(BUILD_DIR)/peers $(GENERATOR)
	@cmake --build $(BUILD_DIR)/peers -j 2
	bench/peers/run-peers --rounds 9 --peers $(BUILD_DIR)/peers --exsim $(BUILD_DIR)
	bench/peers/run-per-rpc --rounds 7 --peers $(BUILD_DIR)/peers --exsim $(BUILD_DIR)/exsim
	bench/impala-5528-run --rounds 7 --peers $(BUILD_DIR)/peers --exsim $(BUILD_DIR)/exsim

clean:
	rm -rf $(BUILD_DIR)
