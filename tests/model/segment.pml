/* SPDX-License-Identifier: Apache-2.0 */
/* The segment generator's hot path and activation protocol (src/segment/SEGMENTS.md), for SPIN.
 *
 * One generator G: consumers draw values with an atomic add and return a value only when it is
 * below ready_end; when the block is used up they activate the next pending range of a ring (the
 * seqlocked entries, the head re-check, the jump, the CAS of ready_end from exactly E, the head
 * CAS), each load and each atomic a step of its own. G's background thread claims ranges from the
 * store and publishes them (a raise when contiguous with no entry pending, else a ring entry).
 * Another generator claims the same key in between, so G's ranges have gaps. See README.md here
 * (segment_check.sh runs it).
 *
 * Checked in every reachable state:
 *   [ours]    every value a consumer returns was claimed by G and confirmed (its claim returned);
 *   [once]    no value is returned twice;
 *   [grows]   ready_end never decreases.
 * SPIN's interleavings are sequentially consistent: the model checks the protocol, not the C++
 * memory orders (those are argued in SEGMENTS.md).
 */

#ifndef NC
#define NC 2        /* consumers */
#endif
#ifndef DRAWS
#define DRAWS 4     /* draws per consumer (a failed draw is one too) */
#endif
#ifndef CLAIMS
#define CLAIMS 3    /* background claims after open */
#endif
#ifndef OTHER
#define OTHER 2     /* claims of the other generator */
#endif
#define SZ 2        /* values per claim */
#define R 2         /* ring slots */
#define NV 24       /* value bound: 1 + SZ * (1 + CLAIMS + OTHER) stays below it */

byte nv;            /* next_value_ */
byte re;            /* ready_end_ */
byte store_next = 1;
bool owned[NV];     /* claimed by G, claim returned */
bool returned[NV];
byte rseq[R];
byte rfirst[R];
byte rend[R];
byte head = 0;
byte tail = 0;

inline set_re(E, to) {
  atomic {
    if
    :: re == E -> assert(to >= re); re = to   /* [grows] */
    :: else -> skip
    fi
  }
}

proctype Consumer() {
  byte draws = DRAWS;
  byte e, v, h, E, s1, f, en, s2;
  do
  :: draws == 0 -> break
  :: draws > 0 ->
    e = re;
    atomic { v = nv; nv = nv + 1; draws-- }
    if
    :: v < e ->
      assert(owned[v]);     /* [ours] */
      assert(!returned[v]); /* [once] */
      returned[v] = true
    :: else ->
      /* One activation attempt, then back to drawing. */
      h = head;
      if
      :: tail <= h -> skip
      :: else ->
        E = re;
        if
        :: nv < E -> skip
        :: else ->
          s1 = rseq[h % R];
          f = rfirst[h % R];
          en = rend[h % R];
          s2 = rseq[h % R];
          if
#ifdef MUTANT_NO_HEAD_RECHECK
          :: s1 == s2 && s1 == 2 * (h + 1) ->
#else
          :: s1 == s2 && s1 == 2 * (h + 1) && head == h ->
#endif
#ifdef MUTANT_JUMP_AFTER_END
            set_re(E, en);
            atomic { if :: nv < f -> nv = f :: else -> skip fi }
#else
            atomic { if :: nv < f -> nv = f :: else -> skip fi }
            set_re(E, en);
#endif
            atomic { if :: head == h -> head = h + 1 :: else -> skip fi }
          :: else -> skip
          fi
        fi
      fi
    fi
  od
}

proctype Background() {
  byte k = 0;
  byte f, en, t, h, E, i;
  bool published;
  do
  :: k == CLAIMS -> break
  :: k < CLAIMS ->
    /* The claim: the store hands out [f, en) and G hears back. */
    atomic {
      f = store_next;
      store_next = store_next + SZ;
      en = store_next;
      i = f;
      do
      :: i < en -> owned[i] = true; i++
      :: else -> break
      od
    }
    k++;
    published = false;
    t = tail;
    h = head;
    if
    :: h == t ->
      E = re;
      if
      :: E == f ->
        atomic {
          if
          :: re == E -> re = en; published = true
          :: else -> skip
          fi
        }
      :: else -> skip
      fi
    :: else -> skip
    fi;
    if
    :: !published ->
      (t - head < R);   /* a slot is reused only after its entry was activated */
      rseq[t % R] = 2 * t + 1;
      rfirst[t % R] = f;
      rend[t % R] = en;
      rseq[t % R] = 2 * (t + 1);
      tail = t + 1
    :: else -> skip
    fi
  od
}

proctype Other() {
  byte k = 0;
  do
  :: k < OTHER -> atomic { store_next = store_next + SZ; k++ }
  :: k == OTHER -> break
  od
}

init {
  byte i;
  /* open(): the first claim, before anything runs. */
  atomic {
    nv = store_next;
    i = store_next;
    store_next = store_next + SZ;
    re = store_next;
    do
    :: i < re -> owned[i] = true; i++
    :: else -> break
    od;
    run Background();
    run Other();
    i = 0;
    do
    :: i < NC -> run Consumer(); i++
    :: else -> break
    od
  }
}
