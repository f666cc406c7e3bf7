/* SPDX-License-Identifier: Apache-2.0 */
/* A model of the slot lease (src/lease/PROTOCOL.md, include/cosid/lease/store.h) for the SPIN
 * model checker.
 *
 * One slot, NH holders and the store. Each holder is one runtime: its LeaseKeeper acquires,
 * renews and releases the slot, its generator issues timestamps from the holder's local clock,
 * and it may crash at any point and come back as a new incarnation (same owner key). What can go
 * wrong around them:
 *   - pauses: a holder stops (GC, VM freeze); its clock stops while the store's goes on;
 *   - crashes: a holder vanishes between any two of its steps; a new incarnation starts;
 *   - lost responses: a compare-and-set takes effect at the store, the holder never hears;
 *   - late requests: a renewal the holder gave up on reaches the store later (or never);
 *   - clock skew: each incarnation's clock starts up to SKEW ticks off the store's;
 *   - store clock jumps: the store's clock jumps back by up to JB or forward by up to JF ticks.
 *
 * What is checked (assertions, so one `pan` run checks every reachable state). A term is what
 * one acquire that changes the fence starts.
 *   [windows] the windows never overlap: a term's timestamps lie above its own floor; when a
 *             term is created its floor lies at or above every timestamp issued so far; and no
 *             holder ever issues a timestamp above the floor of a later term.
 *   [owner]   every id of a term is issued by the incarnation whose acquire created the term.
 *   [unique]  no two terms ever issue the same timestamp on the slot. It follows from
 *             [windows] (an id of an earlier term is <= the later term's floor < its ids); with
 *             -DEACH_ID the model also checks it directly, id by id, at the price of more states.
 *
 * Mutants: compile with one of the macros below and the model must fail (see README.md here):
 *   MUTANT_ACQUIRE_FLOOR_NOW   acquire sets floor = store now instead of next_floor
 *   MUTANT_RELEASE_MINUS_ONE   release hands next_floor = last_issued - 1
 *   MUTANT_NO_CEILING_CHECK    the generator checks only floor < t, not t <= ceiling
 *   MUTANT_KEEP_ISSUING        a renewal that finds the lease gone extends the window locally
 *                              and keeps issuing (the fail-stop rule of src/lease/PROTOCOL.md
 *                              refuses)
 *   MUTANT_RENEW_LOWERS        renew sets expires_at = now + ttl without max(): a store clock
 *                              jump back lowers the ceiling and next_floor
 *   MUTANT_TAKE_OVER_KEY       acquire by the same key with another incarnation takes over the
 *                              live lease instead of answering "taken" (the no-take-over rule of
 *                              src/lease/PROTOCOL.md)
 */

/* ---- Bounds (each may be overridden with -D on the spin command line) ---- */
#ifndef NH
#define NH 2 /* holders (owner keys 0 .. NH-1) */
#endif
#ifndef TTL
#define TTL 2 /* ticks from acquire/renew to expires_at */
#endif
#ifndef TOL
#define TOL 1 /* tolerance: ceiling = expires_at + TOL */
#endif
#ifndef SKEW
#define SKEW 1 /* an incarnation's clock starts in [store - SKEW, store + SKEW] */
#endif
#ifndef JB
#define JB 2 /* largest jump back of the store clock */
#endif
#ifndef JF
#define JF 2 /* largest jump forward of the store clock */
#endif
#ifndef NJ
#define NJ 0 /* store clock jumps in a run */
#endif
#ifndef TICKS
#define TICKS 4 /* ticks of the store clock in a run (jumps come on top) */
#endif
#ifndef RESTARTS
#define RESTARTS 1 /* new incarnations in a run, over all holders (after a crash or shutdown) */
#endif
#ifndef PAUSES
#define PAUSES 1 /* pauses in a run, over all holders; each lasts any number of ticks */
#endif
#ifndef LATE
#define LATE 0 /* renewal requests that reach the store late, in a run */
#endif

#define T0 (JB + SKEW) /* the store clock's start: no clock goes below 0 */
#define TMAX (T0 + TICKS) /* the store clock ticks until here */
#define TCAP (TMAX + SKEW + 1) /* timestamps a holder's clock can show: 0 .. TCAP-1 */
#define FCAP 16 /* fences the model can hand out: 1 .. FCAP-1 */
#define NOFLOOR 255 /* floor_of[] of a fence that ended a term (release) or was never used */

#define max(a, b) ((a) > (b) -> (a) : (b))
#define min(a, b) ((a) < (b) -> (a) : (b))

/* ---- The store: one slot's record, as store.h keeps it, and its clock ---- */
byte snow = T0; /* the store's clock */
byte jumps;     /* store clock jumps so far */
bool s_held;    /* an owner is recorded (it may have expired) */
byte s_key;     /* owner key (the holder's number) */
byte s_inc;     /* owner incarnation */
byte s_fence;   /* +1 on every change of ownership */
byte s_exp;     /* expires_at */
byte s_floor;
byte s_ceil;
byte s_nf; /* next_floor: the floor of the next holder */

/* ---- The holders' clocks (the world ticks them) ---- */
byte lclock[NH];
bool paused[NH];
bool alive[NH];

/* ---- What is left of the run's budgets ---- */
byte restarts = RESTARTS;
byte pauses = PAUSES;
byte late = LATE;

/* ---- A renewal request on its way to the store, sent by a holder that stopped waiting ---- */
byte pend_fence; /* 0: none */
byte pend_key;
byte pend_inc;

/* ---- The observer: what the assertions look at (not visible to holders or store) ---- */
byte maxiss;          /* the largest timestamp issued so far, by anyone */
byte floor_of[FCAP];  /* the floor each fence's term was created with */
byte owner_of[FCAP];  /* the incarnation that created it: key * 16 + incarnation */
hidden byte k;        /* the observer's loop index: scratch, not part of the state */
#ifdef EACH_ID
byte who[TCAP];       /* the fence of the term that issued timestamp t, 0 if none did */
#endif

/* A new term is created by the store: its floor must lie at or above every timestamp issued so
 * far ([windows]). */
inline observe_new_term() {
  assert(s_fence < FCAP);
  floor_of[s_fence] = s_floor;
  owner_of[s_fence] = s_key * 16 + s_inc;
  assert(s_floor >= maxiss) /* [windows] */
}

/* The store's acquire for owner (key, inc): one compare-and-set. Sets `got` when the owner holds
 * the slot afterwards (a new term, or its own live lease again: the idempotent retry). */
inline store_acquire(key, inc) {
  if
  :: !s_held || snow > s_exp ->
     s_fence++;
#ifdef MUTANT_ACQUIRE_FLOOR_NOW
     s_floor = snow;
#else
     s_floor = s_nf;
#endif
     s_exp = snow + TTL;
     s_ceil = max(s_exp + TOL, s_floor);
     s_nf = s_ceil;
     s_held = true; s_key = key; s_inc = inc;
     observe_new_term();
     got = true
  :: else ->
     if
     :: s_key == key && s_inc == inc -> got = true
#ifdef MUTANT_TAKE_OVER_KEY
     :: s_key == key && s_inc != inc -> s_inc = inc; got = true
#endif
     :: else -> got = false
     fi
  fi
}

/* The store's renew: incarnation and fence must match; the window only grows. */
inline store_renew(key, inc, fence) {
  if
  :: s_held && s_key == key && s_inc == inc && s_fence == fence ->
#ifdef MUTANT_RENEW_LOWERS
     s_exp = snow + TTL;
     s_ceil = max(s_exp + TOL, s_floor);
     s_nf = s_ceil;
#else
     s_exp = max(s_exp, snow + TTL);
     s_ceil = max(s_ceil, s_exp + TOL);
     s_nf = max(s_nf, s_ceil);
#endif
     got = true
  :: else -> got = false
  fi
}

/* The store's release: hands the exact last issued timestamp to the next holder. */
inline store_release(key, inc, fence, last) {
  if
  :: s_held && s_key == key && s_inc == inc && s_fence == fence ->
#ifdef MUTANT_RELEASE_MINUS_ONE
     s_nf = (last > 0 -> last - 1 : 0);
#else
     s_nf = max(s_floor, min(last, s_ceil));
#endif
     s_held = false; s_key = 0; s_inc = 0;
     s_fence++;
     assert(s_fence < FCAP);
     floor_of[s_fence] = NOFLOOR
  :: else -> skip
  fi
}

/* The generator issues its clock's reading t under the window of term `fence`. */
inline observe_issue(t, fence) {
  assert(owner_of[fence] == me * 16 + inc); /* [owner] */
#ifdef EACH_ID
  assert(who[t] == 0 || who[t] == fence); /* [unique] */
  who[t] = fence;
#endif
  assert(t > floor_of[fence]); /* [windows] */
  maxiss = max(maxiss, t);
  k = fence + 1;
  do
  :: k <= s_fence -> assert(floor_of[k] == NOFLOOR || t <= floor_of[k]); k++ /* [windows] */
  :: else -> break
  od;
  k = 0
}

proctype Holder(byte me) {
  byte inc;    /* this incarnation's number, from 1 */
  bool has;    /* the binding is valid: a window heard and not found lost */
  byte fence;  /* the term of the window last heard; its floor is floor_of[fence] */
  byte hi;     /* the ceiling last heard */
  byte last;   /* the last timestamp issued under the window (its floor if none) */
  bool got;    /* the store's answer */

  /* A new incarnation starts (at the start, or after a crash or a shutdown while the restart
   * budget lasts). It knows nothing of the last one; its clock is up to SKEW off the store's. */
incarnation:
  atomic {
    inc++;
    assert(inc < 16); /* owner_of[] keeps it in 4 bits */
    has = false; fence = 0; hi = 0; last = 0; got = false;
    paused[me] = false;
    if
    :: lclock[me] = snow
    :: lclock[me] = snow - SKEW
    :: lclock[me] = snow + SKEW
    fi;
    alive[me] = true
  }
end_running:
  do
  /* The keeper acquires the slot (when it holds none: at start or after the lease was lost). */
  :: atomic {
       !paused[me] && !has ->
       store_acquire(me, inc);
       if
       :: got -> has = true; fence = s_fence; hi = s_ceil; last = s_floor
       :: got -> skip /* the response is lost: the holder tries again later */
       :: !got -> skip
       fi;
       got = false
     }
  /* The generator issues t = its clock, only inside the window it last heard, never below what
   * it issued before (one id per tick stands for the tick's whole sequence). `last` starts at
   * the floor, so t > last also says floor < t. */
  :: atomic {
       !paused[me] && has && lclock[me] > last &&
#ifndef MUTANT_NO_CEILING_CHECK
       lclock[me] <= hi &&
#endif
       lclock[me] < TCAP ->
       observe_issue(lclock[me], fence);
       last = lclock[me]
     }
  /* The keeper renews (at any time: the ttl/3 schedule and the back-off only decide when). */
  :: atomic {
       !paused[me] && has ->
       if
       :: true -> /* the response arrives */
          store_renew(me, inc, fence);
          if
          :: got -> hi = max(hi, s_ceil) /* the binding's ceiling only grows */
          :: !got ->
#ifdef MUTANT_KEEP_ISSUING
             hi = lclock[me] + TTL + TOL /* pretends to have renewed and goes on */
#else
             /* lease_lost: invalidate the binding, stop issuing, acquire anew */
             has = false; fence = 0; hi = 0; last = 0
#endif
          fi
       :: true -> /* the response is lost: store_unavailable, retried later */
          store_renew(me, inc, fence)
       :: late > 0 && pend_fence == 0 -> /* the request is held up and reaches the store later */
          late--; pend_fence = fence; pend_key = me; pend_inc = inc
       fi;
       got = false
     }
  /* Shutdown: the generator closes and reports its last timestamp, the keeper releases with
   * it (the response may be lost), the process ends. */
  :: atomic {
       !paused[me] && has ->
       store_release(me, inc, fence, last);
       goto down
     }
  /* A pause: the holder does nothing and its clock stops, for as many ticks as the world runs. */
  :: atomic { !paused[me] && pauses > 0 -> paused[me] = true; pauses-- }
  :: atomic { paused[me] -> paused[me] = false }
  /* A crash, at any point (also while paused): the process vanishes with all it knew. */
  :: atomic { goto down }
  od;
down:
  atomic {
    alive[me] = false; paused[me] = false; lclock[me] = 0;
    has = false; fence = 0; hi = 0; last = 0;
    if
    :: restarts > 0 -> restarts--; goto incarnation
    :: true /* gone for good */
    fi
  }
}

/* Time, the store's clock jumps, and the late renewal request. */
active proctype World() {
  byte i;
  bool got;
end_world:
  do
  :: atomic {
       snow < TMAX ->
       snow++;
       i = 0;
       do
       :: i < NH -> if :: alive[i] && !paused[i] -> lclock[i]++ :: else -> skip fi; i++
       :: else -> break
       od;
       i = 0
     }
  :: atomic { jumps < NJ && snow >= JB -> jumps++; select(i : 1 .. JB); snow = snow - i; i = 0 }
  :: atomic { jumps < NJ -> jumps++; select(i : 1 .. JF); snow = snow + i; i = 0 }
  /* The late renewal reaches the store, whatever became of its sender since (or it never does). */
  :: atomic {
       pend_fence != 0 ->
       store_renew(pend_key, pend_inc, pend_fence);
       pend_fence = 0; pend_key = 0; pend_inc = 0; got = false
     }
  od
}

init {
  byte n;
  atomic {
    do
    :: n < NH -> run Holder(n); n++
    :: else -> break
    od
  }
}
