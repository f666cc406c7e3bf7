/* SPDX-License-Identifier: Apache-2.0 */
/* The word protocol of cosid::Generator with the fetch_add fast path (the spec of the change
 * that replaced the CAS fast path), for SPIN.
 *
 * One generator, one slot, a millisecond layout with epoch 0 (so a tick is a millisecond and
 * start(t) = end(t) = t), first tick 1 (the floor is 0) and S sequences a tick. The word is the
 * closed bit (128) plus stamp * S + seq (S need not be a power of two here). What runs at once:
 *   - 2 callers, making CALLS and CALLS1 next() calls. A call is issue()'s fast path (read the
 *     clock, the ceiling and fast_lead, then V = word.fetch_add(1) + 1: issue V's (tick, seq)
 *     when V is open, not a carry (seq 0), its tick in [first tick, MAXT], end(tick) <= the
 *     ceiling read, now <= end(tick) and start(tick) - now <= the lead read), else next_slow():
 *     reserve() with V as `owned`, then the give-back CAS(V -> V - 1) or count_given_up(V).
 *     reserve()'s loop as the spec has it: the closed refusal, the view `seen` (V is not issued
 *     while the word is still V), the branches (a new tick with the reset threshold; going on in
 *     `last`; the chosen_tick rule; the borrow, of last + 1 or of a `last` reached by carries,
 *     with step_allowance(), which also stores fast_lead, and the early clock_backwards
 *     refusal), the window checks (the layout's end, the floor, the ceiling), the take of V
 *     itself with no RMW when desired == word, the CAS (on failure, again with its word), the
 *     finished-run count, chosen_tick's max, and the waits (the clock and the word read again).
 *   - NCL closers, one close() each, at any moment: fetch_or of the closed bit, then the result
 *     from the word it returned (end(stamp - 1), not capped at the ceiling; the floor with
 *     stamp 0) stored in closed_result; a close() that finds the bit set waits for closed_result
 *     and returns it. With NCL = 1 nothing waits for closed_result, so it is stored in the
 *     fetch_or's step.
 *   - the world: the clock advances a tick (up to T0 + TICKS - 1), steps back by BACK ms (BACKS
 *     times; each raises the allowance step_allowance() returns by the step, capped at LB =
 *     max_step_back), the allowance fades by 1 ms at any moment, and the ceiling is raised a
 *     tick at a time from C0 up to CMAX.
 * Each access of a shared variable (word, fast_lead, chosen_tick, closed_result, the clock, the
 * ceiling, the allowance) is a step of its own: a caller's `pc` names its next one, and what it
 * computes from its own variables is folded into the step before (the others cannot see it).
 * Two folds beyond that: step_allowance() reads the clock and the allowance in one step (the
 * code reads the clock, then the anchor); the adds to `finished` and `given_up` are folded into
 * the step they follow (the CAS, the failed give-back), since only the final stats() reads them.
 *
 * Left out (kept in the C++ tests): catch-up (max_catch_up = 0: a clock past the last tick takes
 * the clock's tick; the reset threshold rule is kept); start_at_floor (the floor gap is 0, so
 * fast_lead starts at DRIFT); next_batch (owned 0: the CAS path modelled here); the fork and
 * binding refusals; want_ceiling() and the wait counters; stats() while calls run (and
 * ids_reported's max); the anchor and the monotonic clock behind step_allowance(), abstracted
 * to the world's allowance (it rises only by a step back, by at most the step, and fades); the
 * waiter's time: a wait gives up at any moment, or reads the clock and the word again, up to
 * WAITS times a call.
 *
 * Checked (assertions at the step that commits an id: the fast path's fetch_add, the CAS, or
 * the ceiling read after which reserve() takes V itself; and at the end):
 *   [unique]  no (tick, seq) is issued twice; the take with no RMW takes the call's own V;
 *   [window]  every id: first tick <= tick <= MAXT and end(tick) <= the ceiling at that moment;
 *   [lead]    every id, not only a tick's first, from a tick past the newest tick reserve() has
 *             issued from (rmax: chosen_tick as it is once the max after that CAS has run)
 *             lies within the bound its call applied: start(tick) - now <= bound, where now is
 *             the clock reading the decision used (the call's, or the one step_allowance() read
 *             again) and bound is the fast_lead the fast path loaded, or the DRIFT + allowance
 *             reserve() computed in that iteration, or, in one that computed none, DRIFT + the
 *             allowance in force. A tick <= rmax is 0.6's rule: reserve() goes on in a tick it
 *             chose, even after a step back past the bound. (chosen_tick itself lags rmax by the
 *             step between the CAS and the max; with it, the mutants' first counterexamples are
 *             only that lag, a call whose clock reading predates the tick another call chose.)
 *   [closed]  every close() returns closed_result; an id committed after it was stored lies at
 *             or below it; at the end it is >= every tick ever issued (ids taken after close()
 *             by calls that started before it included);
 *   [stats]   at the end (all calls and closes done) stats() = finished + (stamp(w) == 0 ? 0 :
 *             seq(w) + 1) - given_up (at least 0, w without the closed bit) is the number of ids
 *             returned.
 *
 * SPIN's interleavings are sequentially consistent: this checks the protocol, not the C++
 * memory orders, which src/window/generator.cc argues (all RMWs of the word are totally ordered
 * whatever their order; fast_lead and chosen_tick are relaxed hints that steer only which tick
 * is tried, never whether a value is unused).
 *
 * Mutants (-DMUTANT_<NAME>; README.md here says where each is caught):
 *   OLD_VALUE      the fast path checks and issues the pre-add value V - 1 instead of V
 *   NO_FAST_LEAD   the fast path skips start(t) - now <= lead
 *   STALE_VIEW     reserve() uses `word` instead of `seen` (takes its own V as issued)
 *   NO_CHOSEN      reserve() goes on in `last` with no lead check when last > chosen_tick
 *   CLOSE_CLAMPED  close() returns min(end(stamp - 1), ceiling)
 *   GIVE_BACK_ANY  the give-back is an unconditional fetch_sub(1), not a CAS from V
 */

/* ---- Bounds (each may be overridden with -D on the spin command line) ---- */
#ifndef S
#define S 2         /* sequences a tick (mask + 1) */
#endif
#ifndef CALLS
#define CALLS 3     /* next() calls of the first caller */
#endif
#ifndef CALLS1
#define CALLS1 CALLS  /* next() calls of the second caller */
#endif
#ifndef NCL
#define NCL 1       /* closers, one close() each */
#endif
#ifndef T0
#define T0 1        /* the clock's start (ms = tick) */
#endif
#ifndef TICKS
#define TICKS 3     /* the clock advances up to T0 + TICKS - 1 */
#endif
#ifndef DRIFT
#define DRIFT 0     /* max_drift, ms */
#endif
#ifndef LB
#define LB 0        /* max_step_back: the largest allowance, ms */
#endif
#ifndef BACKS
#define BACKS 0     /* clock steps back in a run */
#endif
#ifndef BACK
#define BACK 1      /* ms per step back */
#endif
#ifndef CB
#define CB 1        /* GeneratorOptions::clock_backwards, ms */
#endif
#ifndef WAITS
#define WAITS 1     /* re-reads after a wait, per call */
#endif
#define TMAX (T0 + TICKS - 1)
#ifndef MAXT
#define MAXT (TMAX + DRIFT + LB)  /* the layout's last tick: by default past every tick in reach */
#endif
#ifndef C0
#define C0 (MAXT + 1)             /* the ceiling at the start, ms: above every tick by default */
#endif
#ifndef CMAX
#define CMAX C0                   /* the ceiling is raised up to here */
#endif

#define FT 1                 /* first tick: the floor is 0 */
#define FLOOR (FT - 1)       /* binding.floor(): what close() returns with no id */
#define MASK (S - 1)
#define RT (MASK / 2 + 1)    /* reset threshold: a new tick restarts the sequence from here */
#define CLOSED 128           /* the closed bit C; the word's open part stays below it */
#define OPEN(x) ((x) % CLOSED)
#define STAMP(x) (OPEN(x) / S)
#define SEQ(x) (OPEN(x) % S)
#define LAST(x) (STAMP(x) - 1)
#define NID ((MAXT + 1) * S)
#define MYCALLS (_pid == 0 -> CALLS : CALLS1)  /* this caller's calls */
#define MIN(a, b) ((a) < (b) -> (a) : (b))

/* ---- Mutant-dependent expressions (SPIN's preprocessor takes no #ifdef inside one) ---- */
#ifdef MUTANT_OLD_VALUE
#define FAST(v) ((v) - 1)  /* the fast path checks and issues the pre-add value */
#else
#define FAST(v) (v)
#endif
#ifdef MUTANT_NO_FAST_LEAD
#define FAST_LEAD_OK(x) true
#else
#define FAST_LEAD_OK(x) (LAST(x) - now <= lead)
#endif
#define FAST_OK(x) ((x) < CLOSED && SEQ(x) != 0 && FT <= LAST(x) && LAST(x) <= MAXT && \
                    LAST(x) <= cl && now <= LAST(x) && FAST_LEAD_OK(x))
#ifdef MUTANT_STALE_VIEW
#define SEEN(w, own) (w)
#else
#define SEEN(w, own) (((own) != 0 && (w) == (own)) -> (w) - 1 : (w))
#endif
/* Goes on in `last` with no lead check and no look at chosen_tick: */
#ifdef MUTANT_NO_CHOSEN
#define GO_ON_FREE(x) (now <= LAST(x))
#else
#define GO_ON_FREE(x) (now == LAST(x))
#endif

/* ---- The generator's shared state ---- */
byte word;                 /* C | stamp * S + seq, stamp = last tick + 1 */
byte fast_lead = DRIFT;    /* max_drift + the floor gap (0) */
byte chosen = FT - 1;      /* chosen_tick */
byte finished;             /* ids_in_finished_runs */
byte given_up;
byte closed_result;
bool cr_set;               /* closed_result is set */

/* ---- The world ---- */
byte clk = T0;             /* clock.now_ms() */
byte allow;                /* what step_allowance() returns now */
byte ceil = C0;            /* binding.ceiling() */

/* ---- The observer (read by the assertions only) ---- */
bit issued[NID];
byte nids;                 /* ids returned */
byte maxt = FLOOR;         /* the largest tick issued */
byte rmax = FT - 1;        /* the largest tick reserve() issued from (chosen_tick before its max) */
byte done;                 /* callers and closers finished */

/* An id (t, q) is committed: nw is the clock reading the decision used, bd the bound applied. */
inline issue(t, q, nw, bd) {
  assert(FT <= (t) && (t) <= MAXT && (t) <= ceil);  /* [window] */
  assert(!issued[(t) * S + (q)]);                     /* [unique] */
  assert((t) <= rmax || (t) - (nw) <= (bd));         /* [lead] */
  assert(!cr_set || (t) <= closed_result);            /* [closed] */
  issued[(t) * S + (q)] = 1;
  nids++;
  if
  :: (t) > maxt -> maxt = (t)
  :: else -> skip
  fi
}

/* [lead]'s bound for an iteration of reserve() that computed none: DRIFT + the allowance now. */
#define ALLOWANCE_IN_FORCE if :: !cmp -> bnd = DRIFT + allow :: else -> skip fi

/* count_given_up(V): V was taken by the fast path, no id came from it, the word moved on. */
inline count_given_up(x) {
  if
  :: STAMP(x) != 0 -> given_up++
  :: else -> skip
  fi;
  if
  :: SEQ(x) == 0 && STAMP((x) - 1) != 0 -> finished = finished + S
  :: else -> skip
  fi
}

/* ---- A caller ----
 * next() as a sequence of steps: each is one access of a shared variable, followed by what the
 * caller computes from its own variables up to its next shared access, which `pc` names. */
#define P_CALL     0  /* issue(): clock.now_ms() (a call starts) */
#define P_CEIL     1  /* issue(): binding.ceiling() */
#define P_LEAD     2  /* issue(): fast_lead.load() */
#define P_FADD     3  /* issue(): word.fetch_add(1) */
#define P_LOAD     4  /* next_slow(): word.load() for reserve() */
#define P_CHOSEN   5  /* reserve(): chosen_tick.load() */
#define P_ALLOW    6  /* step_allowance(now): the clock read again, the allowance */
#define P_PUBLISH  7  /* step_allowance(): fast_lead.store(DRIFT + allowance) */
#define P_BCEIL    8  /* the borrow's binding.ceiling() */
#define P_WCEIL    9  /* the window checks' binding.ceiling(), then V itself taken or the CAS */
#define P_CAS     10  /* word.CAS(w -> desired) */
#define P_MAX     11  /* chosen_tick = max(chosen_tick, tick) */
#define P_NOW     12  /* after a wait: clock.now_ms() */
#define P_RELOAD  13  /* after a wait: word.load() */
#define P_BACK    14  /* next_slow(): the give-back CAS(V -> V - 1), or count_given_up(V) */

/* The top of reserve()'s loop, from the `word` it holds (w) and the clock reading (now): the
 * view `seen` and the branch. */
inline view() {
  tick = now; nsq = 0; cmp = false; bnd = 0; borrow = false; carried = false;
  if
  :: w >= CLOSED -> seen = 0  /* refused: closed */
  :: else ->
     seen = SEEN(w, v);
     if
     :: STAMP(seen) == 0 -> skip  /* no id yet: the clock's tick */
     :: STAMP(seen) != 0 && now > LAST(seen) ->
        /* The clock left the last tick; catch-up is off: the reset threshold decides. */
        nsq = (SEQ(seen) >= RT -> 0 : SEQ(seen) + 1)
     :: STAMP(seen) != 0 && SEQ(seen) < MASK && GO_ON_FREE(seen) ->
        tick = LAST(seen); nsq = SEQ(seen) + 1  /* the same tick */
     :: STAMP(seen) != 0 && SEQ(seen) < MASK && !GO_ON_FREE(seen) && now < LAST(seen) ->
        carried = true  /* the clock went back: chosen_tick decides */
     :: STAMP(seen) != 0 && SEQ(seen) == MASK && now <= LAST(seen) ->
        borrow = true  /* used up: the candidate is last + 1 */
     fi
  fi;
  if
  :: w >= CLOSED -> pc = P_BACK  /* refused: closed */
  :: w < CLOSED && carried -> pc = P_CHOSEN
  :: w < CLOSED && borrow -> pc = P_ALLOW
  :: w < CLOSED && !carried && !borrow -> window()
  fi
}

/* The window checks: the layout's end, then (the next step) the floor and the ceiling. */
inline window() {
  if
  :: tick > MAXT -> pc = P_BACK  /* refused: timestamp_overflow */
  :: else -> pc = P_WCEIL
  fi
}

/* A wait: the clock and the word are read again, or the waiter's bound runs out (at any
 * moment: the model has no waiting time). */
inline wait() {
  if
  :: waits > 0 -> waits--; pc = P_NOW
  :: true -> pc = P_BACK  /* refused: clock_backwards, clock_stalled, behind_floor, ceiling */
  fi
}

/* The borrow's else: wait, or refuse clock_backwards at once when the tick before the candidate
 * is beyond the bound and no wait within clock_backwards could bring the candidate in. */
inline borrow_wait() {
  if
  :: tick - 1 - now > bnd && tick - now - bnd > CB -> pc = P_BACK
  :: else -> wait()
  fi
}

/* reserve()'s take, in the step that commits the id: the CAS, or the read of the ceiling after
 * which reserve() takes V itself (desired == word) with no RMW. */
inline take() {
  ALLOWANCE_IN_FORCE;
  issue(tick, nsq, now, bnd);
  if
  :: tick > rmax -> rmax = tick
  :: else -> skip
  fi;
  if
  :: nsq == 0 && STAMP(seen) != 0 -> finished = finished + SEQ(seen) + 1
  :: else -> skip
  fi;
  if
  :: w == v -> v = 0  /* V consumed: taken, or CASed past from V */
  :: else -> skip
  fi;
  pc = P_MAX
}

/* A call is over: its locals are reset (so that states differ only by what matters). */
inline clear() {
  now = 0; v = 0; w = 0; seen = 0; tick = 0; nsq = 0; bnd = 0; waits = 0;
  cmp = false; borrow = false; carried = false; pc = P_CALL;
  if
  :: calls == MYCALLS -> done++  /* the caller's last call */
  :: else -> skip
  fi
}

active [2] proctype Caller() {
  byte calls;
  byte pc;        /* the next shared access */
  byte now;       /* the call's clock reading (step_allowance() reads it again) */
  byte cl;        /* the fast path's ceiling reading */
  byte lead;      /* the fast_lead the fast path loaded */
  byte v;         /* owned: the value the fetch_add gave the call, 0 once used up */
  byte w;         /* reserve()'s `word` */
  byte seen;
  byte tick;      /* the tick reserve() goes for (the candidate, in a borrow) */
  byte nsq;       /* next_sequence */
  byte bnd;       /* DRIFT + step_allowance(), when computed in this iteration */
  byte waits;     /* re-reads left */
  bool cmp;       /* bnd computed in this iteration */
  bool borrow;    /* the lead check of a candidate */
  bool carried;   /* the candidate is `last` (a tick reached by carries), not last + 1 */

  do
  /* ---- issue(): the fast path ---- */
  :: atomic { pc == P_CALL && calls < MYCALLS -> calls++; now = clk; pc = P_CEIL }
  :: atomic { pc == P_CEIL -> cl = ceil; pc = P_LEAD }
  :: atomic { pc == P_LEAD -> lead = fast_lead; pc = P_FADD }
  :: atomic { pc == P_FADD ->
       v = word + 1;  /* V = word.fetch_add(1) + 1 */
       word = word + 1;
       if
       :: FAST_OK(FAST(v)) -> issue(LAST(FAST(v)), SEQ(FAST(v)), now, lead); clear()
       :: else -> pc = P_LOAD  /* next_slow(now, owned = V) */
       fi;
       cl = 0; lead = 0 }
  /* ---- reserve(1, now, word.load(), owned) ---- */
  :: atomic { pc == P_LOAD -> w = word; waits = WAITS; view() }
  :: atomic { pc == P_CHOSEN ->
       if
       :: LAST(seen) <= chosen ->  /* a tick reserve() chose: go on in it */
          tick = LAST(seen); nsq = SEQ(seen) + 1; carried = false; window()
       :: else -> borrow = true; pc = P_ALLOW  /* reached by carries: the lead check */
       fi }
  :: atomic { pc == P_ALLOW ->
       now = clk; bnd = DRIFT + allow; cmp = true;
       tick = (carried -> LAST(seen) : LAST(seen) + 1);  /* the candidate */
       pc = P_PUBLISH }
  :: atomic { pc == P_PUBLISH ->
       fast_lead = bnd;
       if
       :: tick - now <= bnd -> pc = P_BCEIL  /* next_lead_ms <= bound */
       :: else -> borrow_wait()
       fi }
  :: atomic { pc == P_BCEIL ->
       if
       :: tick <= ceil -> nsq = (carried -> SEQ(seen) + 1 : 0); window()
       :: else -> borrow_wait()
       fi }
  :: atomic { pc == P_WCEIL ->
       if
       :: tick < FT || tick > ceil -> wait()  /* behind the floor, past the ceiling */
       :: else ->
          if
          :: (tick + 1) * S + nsq == w ->
             /* desired == word: V itself, this call's: taken with no RMW */
             assert(w == v);  /* [unique] */
             take()
          :: else -> pc = P_CAS
          fi
       fi }
  :: atomic { pc == P_CAS ->
       if
       :: word == w -> word = (tick + 1) * S + nsq; take()
       :: else -> w = word; view()  /* the CAS failed: again with the word it returned */
       fi }
  :: atomic { pc == P_MAX ->
       if
       :: chosen < tick -> chosen = tick
       :: else -> skip
       fi;
       if
       :: v == 0 -> clear()
       :: else -> pc = P_BACK
       fi }
  :: atomic { pc == P_NOW -> now = clk; pc = P_RELOAD }
  :: atomic { pc == P_RELOAD -> w = word; view() }
  /* ---- next_slow(): give back V, or count it ---- */
  :: atomic { pc == P_BACK ->
#ifdef MUTANT_GIVE_BACK_ANY
       word = word - 1;
#else
       if
       :: word == v -> word = v - 1
       :: else -> count_given_up(v)
       fi;
#endif
       clear() }
  :: pc == P_CALL && calls == MYCALLS -> break
  od
}

#if NCL > 0
/* What close() stores and returns (with stamp 0: the floor). */
#ifdef MUTANT_CLOSE_CLAMPED
#define CLOSE_RESULT(w) MIN((STAMP(w) == 0 -> FLOOR : LAST(w)), ceil)
#else
#define CLOSE_RESULT(w) (STAMP(w) == 0 -> FLOOR : LAST(w))
#endif

active [NCL] proctype Closer() {
  byte w;
  byte r;
  atomic {
    w = word;  /* word.fetch_or(C) */
    if
    :: word < CLOSED -> word = word + CLOSED
    :: else -> skip
    fi
#if NCL == 1
    /* No other close() can wait for closed_result: it is stored in this step. */
    ; r = CLOSE_RESULT(w); closed_result = r; cr_set = true; done++
#endif
  }
#if NCL > 1
  if
  :: w >= CLOSED ->
     atomic { cr_set;  /* closed before: wait until closed_result is set */
              r = closed_result; done++ }
  :: else ->
     atomic { r = CLOSE_RESULT(w); closed_result = r; cr_set = true; done++ }
  fi;
#endif
  assert(r == closed_result)  /* [closed] */
}
#endif

active proctype World() {
  byte backs;
end:
  do
  :: clk < TMAX -> clk++
  :: backs < BACKS && clk >= BACK ->
     atomic { clk = clk - BACK; allow = MIN(allow + BACK, LB); backs++ }
  :: allow > 0 -> allow--
  :: ceil < CMAX -> ceil++
  od
}

active proctype Check() {
  short sum;
  (done == 2 + NCL);
  atomic {
    sum = finished + (STAMP(word) == 0 -> 0 : SEQ(word) + 1) - given_up;
    sum = (sum < 0 -> 0 : sum);
    assert(sum == nids);            /* [stats] */
    assert(NCL == 0 || closed_result >= maxt)  /* [closed] */
  }
}
