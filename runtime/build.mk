# SPDX-License-Identifier: GPL-2.0-only
# The confiner: libjr2.a (linked by the harness and the suite too),
# jr2-confine, the test tool jr2-try, the unit and end-to-end tests, benches.

JR2_LIB_SRCS := runtime/abi.c runtime/ruleset.c runtime/policy.c \
	runtime/config.c runtime/plan.c runtime/fswalk.c runtime/compile.c \
	runtime/confine.c
JR2_LIB_OBJS := $(JR2_LIB_SRCS:runtime/%.c=$(OBJ)/runtime/%.o)
JR2_HDRS := $(wildcard runtime/*.h)

BINS += $(BIN)/jr2-confine
MANS += runtime/jr2-confine.1

$(OBJ)/runtime/%.o: runtime/%.c $(JR2_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(OBJ)/libjr2.a: $(JR2_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(BIN)/jr2-confine: $(OBJ)/runtime/jr2-confine.o $(OBJ)/libjr2.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_STATIC) -o $@ $^

TEST_BINS += $(BIN)/jr2-try
$(BIN)/jr2-try: runtime/tests/try.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS_STATIC) -o $@ $<
