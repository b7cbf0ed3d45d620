"""The busiest minute: every channel reveals yesterday's round and posts today's at 09:00 while answers
arrive at 10,000/s and the leaderboard is read 50/s.

Run: python -m bench.daily_minute [--channels 10000] [--seconds 60] [--store sqlite|postgres]
     [--url postgresql://postgres@127.0.0.1:5432/test] [--discord-share 0.1] [--rate 10000] [--reads 50]
     [--roles interactive,delivery]  (PostgreSQL only: the fan-out in a second process, bench.daily_roles)

The store is seeded directly (channels due at 09:00 UTC, yesterday's round of each posted with answers
waiting to be scored, its reveal promised for 09:00). Then the bot's own DailyScheduler runs on a clock that
starts 10 s before 09:00 and advances in real time (APScheduler's interval job, the real TICK), against a
fake platform per chat service: every call takes 50 ms and waits, as the client libraries do, to keep to the
documented rate limits (Discord: 5 messages per 5 s per channel, 50 requests/s globally; Slack: 1 message
per second per channel, 300 per minute per workspace). A second, quiet day follows (no answers, no reads)
to measure the core's CPU time per channel (post + reveal; the fake calls sleep, so they cost no CPU); it
reveals the loaded day's rounds, so it also scores their answers and updates the learners' cards. A third
day reveals the second day's rounds, which nobody answered: that is the fan-out's own cost, the "core per
channel" figure.

Targets: answer p99 < 20 ms, p99.9 < 50 ms; every channel posted and revealed within 60 s of 09:00; core
overhead per channel < 0.5 ms; RSS high-water mark < 150 MB. SQLite files live in a temporary folder
and PostgreSQL in a throwaway database; both are removed afterwards.

Measured 2026-12-01 on the shared 2-core machine (8 other sessions busy), main before the batched tick and
after it, back to back with this script (ratios are the figure; single runs, so noisy):
                         core per channel   posted/revealed max (s)   answer p99 (ms)   RSS (MB)
  SQLite   1,000 ch      1.13 -> 0.44 ms    10.7/8.5 -> 8.5/7.2       123 -> 101        100 -> 102
  SQLite  10,000 ch      1.11 -> 0.48 ms    58.3/41.1 -> 47.5/31.0    133 -> 119        121 -> 122
  PostgreSQL  1,000 ch   1.74 -> 0.86 ms    14.0/12.3 -> 21.7/17.9*   355 -> 530*       101 -> 112
  PostgreSQL 10,000 ch   1.75 -> 0.81 ms    86.3/68.2 -> 77.8/63.0    232 -> 94         187 -> 177
(* another benchmark ran beside it; with five reveals a transaction instead of ten, PostgreSQL 1,000 ch in
another pair of runs: 1.63 -> 0.92 ms, 12.0/10.5 -> 12.4/10.6 s, answer p99 120 -> 39 ms.) Trips to SQLite's
thread per channel's post + reveal: 14 -> 0.5. The
answer p99 and the 10,000-channel PostgreSQL deadline are missed on this machine both before and after: the
one event loop is saturated (the loaded run uses ~50 s of CPU in its 60 s), and the Discord lane alone needs
40 s for 1,000 channels' 2,000 calls at 50 requests/s. The second day's figure (reveals scoring the loaded
day's answers and cards) is 22 -> 21 ms per channel at 600 answers a round: the scoring, not the fan-out.

Then (2026-12-01, quiet machine, no other session; main f07187e vs the perf2 branch, back to back, one run
each): PostgreSQL's grouped finishes go in one executemany pipeline instead of a trip per row, and a reveal
batch takes a space's advisory lock once per transaction instead of again for each round. A cProfile of the
bare quiet day (2,000 channels) showed 22.5 asyncpg statements per channel, the socket sends alone a tenth
of the CPU, so trips are the cost on this path.
                         core per channel   posted/revealed max (s)   answer p99 (ms)   RSS (MB)
  PostgreSQL  1,000 ch   0.873 -> 0.777 ms  12.4/10.5 -> 11.9/10.4    46 -> 66          103 -> 102
  PostgreSQL 10,000 ch   0.989 -> 0.878 ms  81.8/65.7 -> 71.2/57.4    216 -> 116        185 -> 192
Ratios: core per channel 0.89 at both sizes; at 10,000 channels the last post 0.87 and the last reveal 0.87
of main's (the reveals are now inside 60 s, the posts still 11 s late: posts start only once every reveal of
the lane is done, the first one 29 s after 09:00). RSS is unchanged within noise and still over 150 MB;
answer p99 is single-run noise (the loop is saturated either way). Still missed: core < 0.5 ms and the 60 s
post deadline on PostgreSQL; the remaining per-round trips of a reveal (claim, answers, previous date,
speed bonus) are the next target.

Then (2026-12-01, busy shared machine; main aad1a00 vs the pgtrips branch, two pairs of single runs, 10,000
channels): a PostgreSQL reveal batch takes its round and space locks in one statement and claims all its
rounds in one more, which also reads their answers, previous dates, streaks, doubts, cards and channels; the
reveal steps answer from those rows and only the writes go to the server. Trips per quiet round: ~5.6 -> ~1.2.
Core per channel (quiet day): 1.292 -> 0.942 ms and 1.294 -> 0.895 ms (ratio 0.73 and 0.69; main is slower
here than the 0.878 ms above because the machine was busier). Still over 0.5 ms; the loaded runs' answer
p99 and deadlines swung with the machine's load (runs with "Busy" refusals on both sides), no ratio there.

Then (2026-12-02, a quiet machine of its own, slower than the one above: main b00bdd8 vs main with the
tick as background work, one run each, 10,000 channels). py-spy showed answer batches queued behind the
tick's reveal and post transactions on SQLite's one connection (an answer batch of 1 ms waited 250 ms behind
a dozen reveals), and on PostgreSQL the fan-out holding every pooled connection. Now the tick runs in
bot.priority.background(): SQLite's TurnLock hands the connection to answer batches and reads first, and
PostgreSQL's background work holds at most 7 of the pool's 10 connections.
                         answer p99 / p99.9 (ms)      posted/revealed max (s)    core per channel   RSS (MB)
  SQLite                 503 / 615 -> 55 / 123        72.0/59.1 -> 81.4/66.7      0.934 -> 0.984     102 -> 98
  PostgreSQL (FG 0 / 3)  520 / 614 -> 127 / 195       118*/104.8 -> 111.4/91.2    n/a -> 1.357       118 -> 143
(* only 5,211 of 10,000 posted when the run stopped waiting.) Ratios: answer p99 0.11 on SQLite and 0.24 on
PostgreSQL (FOREGROUND_CONNECTIONS 0 and 3 back to back); the fan-out ends 1.13x later on SQLite (the
store's thread is saturated: a policy that gave every third turn to the tick let answers pile up, 243,577
refused). Two more PostgreSQL runs of the new main: 73 / 219 ms, 99.2/80.1 s, 149 MB; and one with the server
slow from the start (seeded in 33 s instead of 15) in which answers fell behind and never caught up (570,672
refused, RSS 1.2 GB: the harness keeps starting 10,000 tasks a second). With the database on tmpfs
(TMPDIR=/dev/shm) SQLite gives 40 / 55 ms: the rest of the disk run's tail is the disk (writes stalled while
a checkpoint synced). Larger answer batches (a batch at most every 4 ms) cut the answers-only CPU to 0.85
but did not move the loaded figures (39 / 53 vs 40 / 55 ms on tmpfs), so they are not in. py-spy --gil of
the loaded run: a fifth of the GIL goes to the harness starting a task per answer, as an adapter does.

Then (2026-12-02, the next session, same kind of machine; single runs, and on this machine one build's
runs swing by +-20%): a timed probe of every store transaction showed a loaded-day reveal batch (5 rounds of
20 answers) holding SQLite's connection 9-11 ms of its thread's CPU, so an answer batch can wait that long.
The scores upsert now also writes when each total was reached and returns the totals before (two statements
a board fewer), and migration 072 drops the unread index scores_top (bench/reveal_batch.py: about 0.9 of the
CPU per revealed round on both stores, in alternating runs). SQLite, main at the start of the session ->
after: answer p99 / p99.9 59.9 / 168 -> 58.7 / 182 ms, posted/revealed max 72.5/59.6 -> 74.5/62.7 s, core
per channel 0.769 -> 0.773 ms, RSS 98 -> 104 MB: no change beyond the noise. PostgreSQL after: 77 / 157 ms,
100.4/76.0 s, 1.317 ms, 138 MB. Tried and left out: uvloop (fan-out 0.9 of the time, answer p99 2.3x
worse in one run), REVEAL_BATCH 2 on SQLite (answer p99 91 ms), sys.setswitchinterval(0.001) (within noise).

Then (2026-12-02, a slower machine: about a third of the last one's speed, 20% CPU steal; single runs), with
the idle-priority checkpoint thread and the cheaper answer path. SQLite, main 3779d20 -> after: answer p99 /
p99.9 60.7 / 77.4 -> 60.4 / 90.1 ms, posted/revealed max 104.2/89.2 -> 96.4/82.3 s, core per channel
1.668 -> 1.679 ms, CPU of the loaded run 114.1 -> 103.9 s, RSS 85 -> 100 MB. PostgreSQL cannot carry this
load on this machine: main 3779d20 kept the answers (p99 216 ms) but posted 1,000 of 10,000 channels (the
quiet days then sent nothing); after, two runs posted and revealed every channel (max 99.9/73.6 and
116.9/84.0 s, core per channel 2.02 and 2.13 ms) but the answers fell behind for good (503,000-581,000
refused as Busy, RSS 1.8-2.0 GB as the harness keeps starting 10,000 tasks a second), with the server slow
from the start (seeding 24-40 s against 21.5 s). A second pair, back to back: main 3779d20 p99 210 ms, posted
1,246 of 10,000; after, p99 191 ms, posted 3,922, loaded-run CPU 93.6 -> 87.3 s. So which side gives way on a
saturated loop varies from run to run; no run on this machine, before or after, met the targets.

Then (2026-12-03, a quiet machine of its own, about 2.5x the speed of the one above: a 10M-step Python loop
in 0.20-0.24 s; main ee39248, one run per row, back to back):
                         answer p99 / p99.9 (ms)   posted/revealed max (s)   core per channel   RSS (MB)
  SQLite      1,000 ch   23.2 / 35.5               10.4/9.0                  0.751 ms           80
  SQLite     10,000 ch   34.2 / 47.7               71.6/58.8                 0.823 ms           95
  PostgreSQL  1,000 ch   24.4 / 43.7               16.0/13.4                 1.354 ms           103
  PostgreSQL 10,000 ch   73.9 / 130.0              91.2/72.6                 1.086 ms           152
Every channel was posted and revealed in all four; the loaded runs used 70.7 s (SQLite) and 62.1 s
(PostgreSQL) of CPU at 10,000 channels, so the one event loop is still the limit. Main before ee39248 (the
schedule's resolved instants and the boards' period keys kept for the fan-out) on SQLite at 10,000
channels, the same morning: 31.3 / 52.3 ms, 69.2/57.2 s, 0.783 ms, 95 MB; the same within noise here (a
quiet-day probe without the platform's waits gave about 0.9 of the CPU per channel in 3 alternating pairs).
The answer p99 is now also given by when the answers came: in two more SQLite runs at 1,000 channels,
before 09:00 4.6 and 9.7 ms, during the fan-out 25.8 and 35.6 ms, after it 31.1 and 46.7 ms. So the tail
is not the fan-out alone: once the answers spread over the day's 1,000 new rounds (before 09:00 they go to
20), they stay slow with only the answers and the reads running (the two runs' whole-run p99 were 28.6
and 41.9 ms: on this machine one build's runs differ by half).

Then (2026-12-05, the shared 2-core machine in a quiet spell; r29 d90e8ff with aiosqlite vs the store on its
own connection thread, bot.store.sqlite_thread; SQLite, --channels 1000 --seconds 10, three alternating
pairs): core per channel 0.604, 0.455, 0.510 ms before, 0.484, 0.473, 0.464 ms after (medians 0.510 ->
0.473, ratio 0.93: within this machine's noise); posted/revealed max 8.3/6.8 s on both.

Then (2026-12-05, the shared 2-core machine, another session working beside it; main b0cc30b vs the i34perf
branch, one run each, back to back): a lane's posts and reveals run side by side (a due channel's post
reveals its own due rounds first, in a batch, or waits for the reveal drain's batch that holds them), a batch
of due posts reads its spaces' pick inputs in one statement each (Store.daily_pick_inputs: PostgreSQL quiet
day 3.1 -> 1.6 statements per channel, 500 channels), and --roles interactive,delivery runs the fan-out in a
second process (bench.daily_roles). PostgreSQL, 10,000 channels, 60 s:
                      answer p99/p99.9 (ms)  p99 during/before   first/last post, last reveal (s)  core/ch   RSS (MB)
  main, one process   21.8 / 36.1            23.3 / 4.2 = 5.5    30.0 / 108.7, 53.9                 0.934 ms  175
  branch, one process 134.6 / 237.4          144.9 / 11.5 = 12.6 10.7 / 70.5, 67.6                  0.789 ms  132
  branch, roles split 70.7 / 123.8           74.7 / 46.5 = 1.6   14.0 / 67.8, 64.9                  0.759 ms  97 + 117
A second pair, back to back (the same builds):
  main, one process   16.6 / 46.0            17.2 / 5.4 = 3.2    29.4 / 109.2, 54.8                 1.179 ms  190
  branch, one process 227.8 / 339.9          237.2 / 5.0 = 47.4  10.9 / 68.3, 65.1                  0.840 ms  126
  branch, roles split 804.8 / 1144.3         847.7 / 9.8 = 86.9  10.7 / 59.6, 56.1                  0.800 ms  105 + 113
and the branch with the lane's reveal batches and post groups in flight halved to 5 + 5 (LANE_UNITS: about
SEND_CAP items in all, as when they took turns; this is what is committed):
  one process         88.8 / 188.2           98.1 / 4.2 = 23.2   9.6 / 76.8, 71.8                   1.025 ms  113
  roles split         151.5 / 348.9          179.1 / 6.4 = 28.2  11.3 / 73.0, 67.8                  1.071 ms  98 + 101
The quiet day's 20,000 sends: main 121.0 and 124.2 s, the branch 49-53 s (62 s halved). Main's answers are
calm because its posts come after its reveals, most of them after the answers stop (they run 50 s past
09:00); overlapped, the same work falls inside the answers' minute, and in one process the answer p99 during
the fan-out is 5-15x main's. Split, the interactive process used 22-26 s of CPU in the minute (not
saturated) and still waited 75-850 ms at p99: this machine's two cores carry both processes, PostgreSQL and
another session's work, so the split's ratio swung 1.6 / 86.9 / 28.2 between runs and the 20 ms target was
not met here; the split needs its own cores (or hosts) and PostgreSQL's to show. Every channel was posted
and revealed in every run; the branch's last post is at 60-77 s (main 109 s; the tick's first run after 09:00
comes at +5 s, and Discord's 50 requests/s take 40 s for its 1,000 channels' 2,000 calls). RSS: main 175-190
MB in one process, the branch 113-132 MB in one process and 97-117 MB per process split. SQLite, 1,000
channels, 30 s (full caps): p99 13.1 -> 12.8 ms, posted/revealed max 8.8/7.3 -> 8.4/7.4 s, core per channel
0.732 -> 0.655 ms, RSS 66 -> 68 MB (no change beyond noise). bench.answers core/raw 0.32 on both (142,882
and 150,255 answers/s). Still missed: core per channel < 0.5 ms on PostgreSQL (0.76-1.07 ms: the reveal
claim, the reveal's finish and the post's finish are still statements of their own per batch), the 60 s
deadline, and the 20 ms p99 on this machine.

Then (2026-12-05 evening, the same machine with no other session; main c5d9213 vs c923ba5/46232cb, back to
back): PostgreSQL's send outcomes go in one UPDATE over arrays per batch with no BEGIN/COMMIT, a claim of due
channels returns their settings and open rounds, a reveal batch claims its reveal posts in its claim
statement, the pick inputs come in one statement, and reveal batches hold 10 rounds (3 batches + 3 post
groups in flight; a cProfile showed each socket send to the server costing ~0.15 ms of this process's CPU).
Statements per channel on the bare quiet day (2,000 channels): 2.79 -> 1.14. PostgreSQL, 10,000 channels:
                      answer p99/p99.9 (ms)  p99 during/before   first/last post, last reveal (s)  core/ch   RSS (MB)
  main, one process   46.6 / 71.5            48.8 / 4.3 = 11.3   9.6 / 71.2, 66.3                   0.845 ms  109
  new, one process    32.4 / 57.0            34.1 / 3.9 = 8.7    9.5 / 74.5, 70.3                   0.682 ms  108
  new, roles split    601.2 / 1017.9         681.0 / 4.7 = 143.9 11.7 / 67.6, 63.2                  0.666 ms  102 + 88
and with the delivery process keeping twice as much in flight (5 + 5 units), two runs: answer p99 during
1447 and 1550 ms (ratio 283 and 346), last post 63.2 and 63.9 s, core 0.529 and 0.553 ms: faster and
cheaper per channel, but the answers of the other process waited twice as long, so it is not kept. Sampling
pg_stat_activity during a split run showed PostgreSQL's backends waiting on space advisory locks (reveal
batches of the same space, 217 samples), on WAL flushes (answer batches' commits) and idle in transaction
(the delivery process between a reveal batch's statements): on two shared cores the split adds contention
instead of removing it. SQLite, 1,000 channels, two alternating pairs: answer p99 11.2/11.3 -> 12.3/12.5
ms, last post 9.0/9.1 -> 8.6/8.5 s, core per channel 0.990/1.008 -> 0.868/0.816 ms, RSS 83/85 -> 88/86 MB;
SQLite, 10,000 channels (new): p99 26.5 ms, last post/reveal 58.6/46.7 s, RSS 88 MB. bench.answers core/raw
0.32 -> 0.31. Still missed: core per channel < 0.5 ms on PostgreSQL, the 60 s deadline on PostgreSQL, and
the split's 20 ms p99 and ratio <= 2 on this machine.

Then (2026-12-05 night, the same machine with no other session; main 2b61f82 against three changes, one run
each, back to back): a delivery lane cuts reveal batches by whole spaces and runs two batches of one space one
after the other in the process (SpaceGate), a delivery process lowers its CPU priority (STUDYBOT_DELIVERY_NICE,
default 10; the split runs below take --delivery-nice), and the round cache holds 16,384 rounds instead of
4,096 (at 10,000 channels most answers after 09:00 went to rounds it had dropped, and each read the round
first). PostgreSQL, 10,000 channels, roles split:
                          answer p99/p99.9 (ms)  p99 during/before   first/last post, last reveal (s)  core/ch
  main, nice 0            1804.6 / 2244.9        1856.5 / 6.1 = 306  10.3 / 73.2, 68.9                 0.597 ms
  main, nice 10           19.0 / 32.3            19.5 / 8.5 = 2.3    11.0 / 68.4, 64.1                 0.598 ms
  + gate, nice 0          66.8 / 128.0           71.9 / 4.7 = 15.2   10.8 / 65.3, 61.0                 0.579 ms
  + gate, nice 10         20.2 / 40.8            21.4 / 4.9 = 4.4    10.5 / 67.3, 63.4                 0.598 ms
  + gate, nice 10 (again) 23.4 / 46.6            25.2 / 4.4 = 5.8    11.3 / 69.6, 65.2                 0.614 ms
  + cache, nice 0         27.4 / 97.3            29.2 / 4.9 = 5.9    10.9 / 67.2, 63.3                 0.603 ms
  + cache, nice 10        17.9 / 34.8            18.7 / 5.6 = 3.4    11.2 / 68.6, 62.8                 0.637 ms
RSS 97-101 MB (interactive) and 85-100 MB (delivery). With the delivery lanes' units at 5 + 5 and nice 10:
44.6 ms during, last post 65.7 s (not kept). One process, main -> all three: answer p99 29.9 -> 24.3 ms
(during 31.4 -> 25.4, ratio 8.4 -> 6.7), last post/reveal 73.5/68.9 -> 69.4/65.0 s, core per channel 0.638 ->
0.577 ms, CPU of the loaded run 42.7 -> 39.6 s, RSS 109 -> 113 MB. SQLite, 1,000 channels: p99 11.7 -> 12.1
ms, last post 8.4 -> 8.4 s, core per channel 1.342 -> 0.820 ms, RSS 86 -> 86 MB (no regression; its answers
after the fan-out, 10.5 and 11.5 ms, were as slow as during it, 13.7 ms: once answers spread over the new
rounds, each round's first answer reads it from the store, so the ratio is not the fan-out's alone).
bench.answers core/raw 0.31. Still missed on this machine: the ratio <= 2 (3.4-5.8 with nice 10), core per
channel < 0.5 ms on PostgreSQL (0.58-0.64), and the 60 s deadline on PostgreSQL (67-70 s: the Slack lane; a
deeper lane was no faster under load).

Then the tick on the clock's multiples of its interval (bot.app.scheduler.until_next_beat): the first tick
after 09:00 had come at +5 to +9 s (15 s after the start's catch-up tick, which the start-up of 10,000
channels pushed to about -6 s), and now comes at 09:00:00. The "before 09:00" window now ends a second before
09:00: in the first run with the aligned tick, answers planned just before 09:00 and still in flight when
the fan-out began raised that window's p99 (split 9.7 ms, one process 62.3 ms) and so flattered the ratio
(1.89). Split (nice 10), two runs: answer p99 18.2 and 17.9 ms, p99.9 38.2 and 29.4 ms, during the fan-out
18.4 and 18.5 ms, ratio 3.3 in the run with the corrected window; first post 0.5 s, last post 58.7 and 61.9
s, last reveal 54.5 and 57.5 s (Discord's lane 40 s, Slack's 59-62 s); core per channel 0.60 and 0.70 ms;
RSS 101-102 + 97-99 MB. SQLite, 1,000 channels: last post 3.8 s (was 8.4), answer p99 13.4 ms and p99.9 21.0
ms (11.7-12.1 and 17.1-18.4 before: the fan-out's work now falls into its first 4 s). One process: the
start (about 4 s at 10,000 channels) now runs before the clock's lead (START_LEAD), so the answers' 09:00 is
the bot's; it used to start the answers' clock late by the start's length, which the tick at +9 s hid and the
tick at 09:00:00 put into the "before 09:00" window (30.4 ms). Then: answer p99 27.7 ms, p99.9 59.5 ms,
during 29.0 / before 3.9 = 7.4, last post 64.9 s, last reveal 60.6 s, core per channel 0.727 ms (this run's
quiet day was the slowest of the night: 59.3 s for its sends), RSS 117 MB.

Then (2026-12-06, a machine about 4x slower than the night before: a 10M-step Python loop in 1.0 s; one run
per row, back to back): the bench picks from the shipped bank (520 questions; it had used a synthetic one of
40), and its answers report whether their round was in the process's round cache. With the shipped bank the
daily pick was the fan-out's largest CPU cost (every question's expected rate, per channel); a pick now works
out the rates of the few questions it tries and reads rates kept per question and channel (migration 125).
PostgreSQL, 10,000 channels, roles split (nice 10), main 04fb49c -> now:
                          answer p99/p99.9 (ms)  p99 during/before   first/last post, last reveal (s)  core/ch
  main 04fb49c            64.4 / 166.6           76.3 / 17.5 = 4.4   0.7 / 87.9, 81.2                  1.694 ms
  now                     57.1 / 99.2            61.1 / 22.0 = 2.8   0.8 / 85.2, 80.6                  0.969 ms
  now, one process        63.0 / 117.5           67.1 / 22.7 = 3.0   0.7 / 87.8, 82.2                  0.983 ms
  main 04fb49c (again)    56.6 / 148.2           61.6 / 13.4 = 4.6   0.8 / 92.0, 85.5                  1.568 ms
  now (again)             52.0 / 126.1           58.2 / 12.0 = 4.9   0.7 / 83.7, 77.6                  0.976 ms
The quiet day's 20,000 sends: 77.3 and 74.9 -> 58.8 and 59.8 s (one process: 62.8 s); delivery CPU in the
loaded minute 38.6 and 39.8 -> 36.0 and 34.8 s; RSS 135-136 + 105-107 -> 135 + 106-108 MB (one process 119
MB). The ratio swung between the two pairs (2.8 and 4.9 now, 4.4 and 4.6 before): no change in it can be told
from these runs. Answers whose round was not in the interactive process's cache (4,300-4,700 of 500,000 during
the fan-out, under 1%) had p99 of 67.9, 60.8, 77.2 and 79.4 ms against 61.0, 58.2, 76.3 and 61.5 ms for the
others: on this machine the round reads do not set the tail, the shared cores do. SQLite, 1,000
channels: p99 34.8 -> 30.3 ms, p99.9 80.4 -> 37.4 ms, last post 6.4 -> 5.3 s, core per channel 2.716 -> 0.972
ms, RSS 93 -> 89 MB. The quiet day alone on PostgreSQL at 2,000 channels (two alternating pairs): 1.345 and
1.283 -> 0.820 and 0.944 ms per channel. A space with a year of history (10 channels x 365 revealed daily
rounds x 20 answers; 20 spaces): its pick inputs took 55 ms of wall time and 11 ms of this process's CPU
before (3,650 rows from 73,000 answers), 5.3 ms and 2.3 ms now (530 rows).

Then (2026-12-06, a few hours later, a machine about twice as fast: the 10M-step loop in 0.53-0.70 s). Two
changes to this benchmark, and one to the bot:
- The seeded PostgreSQL database is analyzed (daily_parts.fresh_statistics), as autovacuum keeps a running
  one. Without statistics the planner read every round of a platform for one space's pick inputs (3.6 ms
  against 0.5 ms a read at 2,000 channels); the server's CPU per channel on the quiet day was 1.33-1.73 ms
  without them and 0.68-0.82 ms with them (two alternating pairs of a quiet-day probe at 2,000 channels).
- The split run's delivery process starts its scheduler START_LEAD s before the answers begin, as the one-
  process run does. Until now its start (a catch-up over all 10,000 channels) ran inside the "before 09:00"
  window: that window's p99 was 45.9-437.9 ms in three of four split runs (5.0-10.7 ms since), so the split's
  ratio figures before this one were flattered.
- The bot: a batch of due posts works out a space's least-asked questions once (AskedCycle), not per channel.
PostgreSQL, 10,000 channels, roles split (nice 10), main ad62b8a (with this benchmark) against now, four
pairs of single runs; the first two with the delivery start still inside the window, the last in reverse order:
                          answer p99 (ms), during / before   last post (s)   core per channel
  pair 1  main / now      72.8 (51.3 / 437.9) / 68.5 (69.6 / 57.6)   80.8 / 73.0   1.125 / 1.039 ms
  pair 2  main / now      33.0 (34.3 / 6.8) / 41.7 (41.8 / 45.9)     70.2 / 73.8   1.161 / 0.847 ms
  pair 3  main / now      26.8 (28.0 / 10.7) / 36.7 (38.9 / 5.9)     69.7 / 76.7   1.115 / 1.016 ms
  pair 4  now / main      22.9 (23.8 / 5.0) / 31.5 (33.0 / 9.3)      65.5 / 70.5   0.781 / 0.742 ms
Core per channel: 0.92, 0.73, 0.91 and 1.05 of main's. The answer p99 and the last post were better for main
in pairs 2 and 3 and for now in pairs 1 and 4: no change in them is told from these runs. With the window clean the
ratio was 2.6-6.6 (main 2.6 and 3.5, now 6.6 and 4.8). One process (now): p99 54.7 ms (58.7 during, 9.2 before),
last post 96.0 s, core 0.926 ms, RSS 118 MB. SQLite, 1,000 channels, main -> now: p99 30.9 -> 27.0 ms, last
post 6.5 -> 6.0 s, core per channel 1.073 -> 1.173 ms, RSS 92 -> 93 MB (no change beyond noise). RSS split:
136-138 MB (interactive) and 95-104 MB (delivery). Tried and left out: the three kinds of send outcome in one
PostgreSQL statement (one queue, one flush): 16% fewer statements, but its mixed shapes kept PostgreSQL
planning it afresh on every call (0.6 ms), so the server spent more per channel, and this process no less.

Then (2026-12-06, later: a 10M-step loop in 0.48 s; one run per row, back to back). Three changes:
- Due channels are claimed a space at a time (migration 126 orders channels_due by due instant, platform,
  space and channel). The claim had taken ties in the table's order: a claim of about 14 channels held 12
  spaces, so each batch read a dozen spaces' pick inputs and built a least-asked pool per channel (1,734
  pools for 2,000 channels; 200 now). Quiet-day probe, 2,000 channels, this process / the server per channel:
  0.71-0.75 / 0.79 ms -> 0.59-0.64 / 0.56-0.63 ms.
- A delivery process (STUDYBOT_ROLE=delivery, bot.app.roles.batching_of) reveals and posts in batches of 50,
  two in flight; a process that answers keeps 10, three in flight. The same probe, batch size / in flight:
  10/3 0.66 / 0.64 ms, 20/2 0.49 / 0.41, 30/2 0.45-0.47 / 0.35-0.38, 40/2 0.41 / 0.29-0.32, 50/2 0.38-0.40 /
  0.27-0.30, 60/1 0.38-0.39 / 0.26. Statements per channel: 1.11 at 10, 0.61 at 20.
- The quiet days run a lane per platform, as the scheduler does. They ran one lane for both platforms, where
  Discord's global limit held up the Slack sends: the quiet day's Slack lane took 57.8 s at 10,000 channels,
  19.8 s now. The loaded minute always ran a lane per platform.
Found on the way: with the claim in space order a post could go out before its channel's reveal (the reveal
saved, its message still in flight, the claim no longer reading the round as open); the lane now waits for a
channel's reveals in flight whatever the claim read (the in-memory store's variant of
test_a_tick_posts_while_it_still_reveals... caught it).
PostgreSQL, 10,000 channels, roles split (nice 10):
                          answer p99/p99.9 (ms)  p99 during/before    last post, last reveal (s)  core/ch   deliv. CPU
  main 66c4adc            70.6 / 98.2            74.1 / 7.6 = 9.8     65.6, 62.2                  0.811 ms  27.5 s
  + claim by space        18.6 / 51.0            19.5 / 6.0 = 3.2     62.0, 61.0                  0.667 ms  26.5 s
  + delivery batches 30/2 19.3 / 44.2            19.9 / 8.4 = 2.4     60.0, 58.9                  0.508 ms  25.8 s
  + batches 50/2          21.5 / 34.0            22.2 / 11.1 = 2.0    49.3, 48.3                  0.387 ms  22.0 s
  the same, again         24.4 / 46.4            25.4 / 5.5 = 4.6     53.9, 52.9                  0.418 ms  23.0 s
  a last pair:
  main 66c4adc            18.0 / 45.0            18.5 / 5.5 = 3.3     66.5, 62.8                  0.828 ms  27.3 s
  now                     20.6 / 40.1            21.3 / 6.3 = 3.4     53.1, 52.1                  0.408 ms  22.6 s
Core per channel 0.49-0.51 of main's, the last post 0.80 of it; the answer p99 swings more between runs of one
build (main 18.0 and 70.6 ms) than between builds. The first post comes at 1.8-1.9 s (0.5-0.6 s before): the
first group of 50 reveals its channels' rounds, answers scored, before it posts. RSS 137-141 MB (interactive)
and 94-104 MB (delivery); the interactive process used 25.9-29.2 s of CPU in each.
One process (now; batches of 10): p99 23.6 ms, p99.9 45.0 ms, during 24.5 / before 7.2 = 3.4, last post 67.8 s,
core per channel 0.681 ms, RSS 116 MB. bench.answers core/raw 0.31 (134,683 answers/s). SQLite, 1,000 channels,
two pairs (main 66c4adc with its own benchmark -> now): answer p99 16.0 and 16.1 -> 17.4 and 16.4 ms, last post
4.2 and 4.2 -> 4.6 and 4.3 s, RSS 92 and 93 -> 100 and 98 MB, core per channel 0.695 and 0.689 -> 0.777 and
0.774 ms. About 7 points of that 12% are this benchmark's lanes per platform (the SQLite quiet-day probe at
1,000 channels, the same build: 0.66-0.67 ms in one lane, 0.71-0.73 ms in two); the rest is not told from noise.

Then (2026-12-06, a machine about half as fast: the 10M-step loop in 0.88 s; main 60390f2 against now, three
pairs of single runs, PostgreSQL, 10,000 channels, roles split, nice 10). pg_stat_statements on a scratch server
(bench.reveal_batch, 1,000 rounds of 20 answers) showed the scores upsert at 46% of the database's time of a
scored reveal (1.56 ms a round, 78 us a row: every row update also writes the board's ranking index) and the
score buckets at another 0.35 ms. A reveal batch now folds its rounds' points into each board once
(bot.store.settle.ScoreFolds): 24,300 score rows instead of 60,000 for the 1,000 rounds, 0.46 ms a round for
scores and buckets; this process's CPU per revealed round 3.12-3.17 -> 2.07-2.49 ms (two alternating pairs).
                          answer p99 during / before (ms)   last post, last reveal (s)   delivery CPU in the minute
  pair 1  main / now      53.6 / 10.8  /  1465.9 / 30.4      65.1, 64.0 / 54.8, 53.7      31.8 / 27.0 s
  pair 2  now / main      42.2 / 17.5  /  316.8 / 16.8       40.2, 39.1 / 80.6, 79.5      21.4 / 36.1 s
  pair 3  now / main      206.1 / 89.7 /  143.1 / 15.9       54.1, 53.0 / 72.4, 71.4      26.8 / 32.5 s
The deadline is met in every run of now and in none of main's (last post 0.50-0.84 of main's in the same pair);
the answers' p99 is not told from noise on this machine: the interactive process went into a backlog in pair 1
(gen-0 collections of 0.6 s in 5 s while thousands of answers waited) and the "before 09:00" window alone
ranged 10.8-89.7 ms with the loop's lag p99 under 2.5 ms and PostgreSQL at 0.4 cores (the server's commits,
not this process). The split worker now starts its quiet days only after the answers stop: pair 2's fan-out
ended at 40 s, and its quiet day had revealed the loaded day's rounds under the answers still arriving (70,214
refused or closed, "after it" p99 8.8 s; not counted above). SQLite, 1,000 channels, main -> now: answer p99
55.2 -> 36.1 ms, last post 8.2 -> 7.0 s, core per channel 1.319 -> 1.228 ms, the scoring day 40.6 -> 33.7 ms
per channel, RSS 100 -> 98 MB. bench.answers core/raw 0.28 (main) and 0.29, 0.21 (now; the answer path is
unchanged: this machine's noise).
Then a PostgreSQL reveal batch writes its points, streaks, cards and review log a statement each for the batch
(PgSettle.flush_writes), not per round: bench.reveal_batch (1,000 rounds of 20 answers, two alternating pairs,
min of 2 repeats) 2.64 and 2.29 -> 1.92 and 1.64 ms of this process's CPU per round. Split, 10,000 channels,
one pair (now, then 2d72a77): delivery CPU in the loaded minute 18.5 / 20.9 s, last reveal 33.4 / 38.1 s, last
post 39.8 / 39.7 s (Discord's lane: 50 requests/s for its 1,000 channels' 2,000 calls); answer p99 during the
fan-out 706.4 / 46.3 ms (now's run went into a backlog in its first seconds after 09:00, gen-0 collections of
124 ms in 5 s; 13.3 ms once the fan-out had ended), before 09:00 39.0 / 30.4 ms. One process (now): answer p99
158.0 ms (164.5 during, 28.9 before), last post 85.2 s, core per channel 1.126 ms, 69.4 s of CPU in the loaded
run, RSS 142 MB: on this machine one process is saturated.

Then (2026-12-06 evening, a faster machine: the 10M-step loop in 0.23 s; one run per row, back to back). PostgreSQL,
10,000 channels, roles split (nice 10), three runs (b4a8ed0, then twice 426932b): answer p99 52.0, 22.7 and 18.2 ms
(p99.9 103.5, 45.9 and 39.3), during / before 09:00 62.9 / 4.5 = 14.0, 26.9 / 6.1 = 4.4 and 20.6 / 5.3 = 3.9; last
post 39.4-39.5 s, last reveal 29.4-29.5 s; core per channel 0.358-0.389 ms; delivery CPU in the loaded minute
12.3-12.8 s; RSS 129-130 + 104-105 MB. Then with the score buckets deleted only when emptied (1,000 scored rounds in
batches of 50: 1,807 -> 1,552 statements), a pair (426932b / 15d6029) and one more run of the latter: p99 19.1 /
21.7 and 27.1 ms, ratio 3.1 / 4.0 and 3.8, delivery CPU 13.5 / 13.9 and 14.4 s, core per channel 0.397 / 0.414 and
0.453 ms, last post 39.6 / 39.5 and 39.7 s (the interactive process's CPU, whose path did not change, went 26.8 /
28.8 and 28.5 s: the machine slowed over the session, and no change shows here). One process (b4a8ed0): p99 25.9 ms
(27.9 / 5.6 = 5.0), last post 43.1 s, core 0.654 ms, RSS 120 MB. Sampling each process's CPU every second showed the
machine at 1.8 of its 2 cores in the fan-out's first 20 s (interactive 0.45, delivery 0.47, PostgreSQL 0.8-0.9
against 0.34 before), and one diagnostic run each gave ratios of 3.6 (the server at synchronous_commit=off), 4.8
(two answer batches in flight), 3.5 (delivery lanes at one batch in flight) and 3.2 (no card updates in the
reveals): on two shared cores the ratio stays above 3 whatever the fan-out's shape. SQLite, 1,000 channels, two
alternating pairs (426932b / 60390f2): p99 15.8 and 16.4 / 19.8 and 22.9 ms, core per channel 0.922 and 0.837 /
0.802 and 0.881 ms, last post 3.9 and 4.1 / 4.7 and 6.0 s, RSS 97-98 / 99-102 MB. bench.answers core/raw 0.31.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import gc
import logging
import random
import time
from typing import Any

from bench.daily_parts import (
    BIN,
    DEFAULT_URL,
    INSTANT,
    LEAD,
    START_LEAD,
    AnswerLoad,
    FakePlatform,
    RealTimeClock,
    channel_refs,
    daily_bank,
    lane_ends,
    postgres_store,
    quantile,
    quiet_day,
    rss_mb,
    seed,
    sent_after,
    server_wal,
    split_ratio,
    sqlite_store,
    wal_figures,
    write_marked_cards,
)
from bot.app.bootstrap import bootstrap
from bot.app.config import DEFAULT_DELIVERY_NICE, DEFAULT_DELIVERY_RATE
from bot.app.runtime import tune_gc
from bot.app.scheduler import DailyScheduler
from bot.kernel.context import DEFAULT_SEND_LEASE as SEND_LEASE
from bot.store.ports import Store

__all__ = ["DEFAULT_URL", "INSTANT", "channel_refs", "postgres_store", "seed", "sqlite_store"]


async def run(store: Store, label: str, args: argparse.Namespace) -> dict[str, float]:
    refs = channel_refs(args.channels, args.discord_share)
    t_seed = time.perf_counter()
    hot = await seed(store, refs, args.answers_per_round)
    seeded = time.perf_counter() - t_seed
    gc.collect()
    rss_seeded = rss_mb()
    # the start (its catch-up tick) runs before the lead, as a process started a while before 09:00 does, so
    # the answers' 09:00 is the bot's 09:00 (START_LEAD; the split run's delivery process starts as early)
    clock = RealTimeClock(INSTANT - dt.timedelta(seconds=LEAD + START_LEAD))
    sent: dict[tuple[str, str], dt.datetime] = {}
    opened: list[int] = list(hot)
    platforms = {name: FakePlatform(name, clock, sent, opened) for name in ("discord", "slack")}
    service = bootstrap(store, daily_bank(), clock, dict(platforms), rng=random.Random(1))
    scheduler = DailyScheduler(service, clock)
    spaces = sorted({(r.platform, r.space_id) for r in refs})
    load = AnswerLoad(service, opened, spaces, args.rate, args.reads)
    expected = 2 * len(refs)

    cpu0 = time.process_time()
    await scheduler.start()
    late = (clock.now() - (INSTANT - dt.timedelta(seconds=LEAD))).total_seconds()
    if late > 0:
        print(f"(the start took {late + START_LEAD:.1f} s: the answers' 09:00 is {late:.1f} s after the bot's)")
    await asyncio.sleep(max(0.0, -late))
    wal0 = await server_wal(store)
    await load.run(args.seconds, lambda: len(sent) >= expected, args.seconds + 60)
    wal = wal_figures(wal0, await server_wal(store), len(refs))
    loaded_cpu = time.process_time() - cpu0
    rss_loaded = rss_mb()
    posts, reveals = sent_after(sent, refs, "post"), sent_after(sent, refs, "reveal")
    lanes = lane_ends(sent, refs)  # before the quiet days reuse `sent`

    # the quiet day: no answers, no reads; CPU time of the fan-out per channel
    for _ in range(300):  # a tick still running finishes first (shutting down would cancel it)
        if not scheduler._lock.locked():
            break
        await asyncio.sleep(0.1)
    await scheduler.stop()  # a tick still running after the wait is cancelled cleanly (not an error)
    sent.clear()
    await service.close()
    load.service = None  # type: ignore[assignment]  # a bot has one service: the quiet days reuse its memory
    del service, scheduler
    scored = await store.count_rows(["answers"])
    loaded_ok = len(posts) == len(refs)  # the quiet days are not measured when the loaded day did not finish
    # the loaded day's reveals' card updates the ticks had not written yet (they rest between transactions)
    cards_left, cards_cpu = await write_marked_cards(store)
    # day 2 reveals the loaded day's rounds (scoring their answers and updating the learners' cards);
    # day 3 reveals day 2's rounds, which nobody answered: the fan-out's own cost (post + reveal)
    quiet_cpu, quiet_wall, quiet_done = await quiet_day(store, clock, platforms, sent, expected if loaded_ok else 0, 1)
    per_round = (scored["answers"] - args.answers_per_round * len(refs)) / len(refs)
    bare_cpu, bare_wall, bare_done = await quiet_day(store, clock, platforms, sent, expected if loaded_ok else 0, 2)

    rss_end = rss_mb()  # before the statistics below copy the latencies
    result = load.figures(max(posts + reveals, default=0.0))
    result.update(
        fan_out_figures(posts, reveals, len(refs))
        | lanes
        | wal
        | {
            "core_ms_per_channel": bare_cpu / len(refs) * 1000 if bare_done else float("nan"),
            "scoring_day_ms_per_channel": quiet_cpu / len(refs) * 1000 if quiet_done else float("nan"),
            "answers_per_loaded_round": per_round,
            "loaded_cpu_ms_per_channel": loaded_cpu / len(refs) * 1000,
            "quiet_wall_s": quiet_wall,
            "bare_wall_s": bare_wall,
            "quiet_done": quiet_done,
            "bare_done": bare_done,
            "loaded_cpu_s": loaded_cpu,
            "cards_left_rounds": cards_left,
            "cards_left_cpu_s": cards_cpu,
            "rss_mb": rss_end,
            "rss_seeded_mb": rss_seeded,
            "rss_loaded_mb": rss_loaded,
            "seed_s": seeded,
            "max_in_flight": max(p.max_in_flight for p in platforms.values()),
            "rate_waited_s": sum(p.limits.waited for p in platforms.values()),
        }
    )
    errs = ", ".join(f"{k} {v:,}" for k, v in load.errors.most_common()) or "none"
    print(
        f"--- {label}: {len(refs):,} channels ({args.discord_share:.0%} Discord), "
        f"{args.answers_per_round} answers to score per round, {args.seconds:g} s at {args.rate:,} answers/s + "
        f"{args.reads} reads/s (seeded in {seeded:.1f} s)"
    )
    print_answers(result, errs)
    print_wal(result)
    print_fan_out(result, expected)
    print(
        f"CPU of the whole loaded run (answers, reads, fan-out) per channel: "
        f"{result['loaded_cpu_ms_per_channel']:.2f} ms; {loaded_cpu:.1f} s in all; then the card updates of "
        f"{result['cards_left_rounds']:,} rounds the ticks had not written, {result['cards_left_cpu_s']:.1f} s"
    )
    print(
        f"RSS high-water mark: {result['rss_mb']:.0f} MB (target < 150; {rss_seeded:.0f} MB once seeded, "
        f"{rss_loaded:.0f} MB after the loaded run)  max platform calls in flight: "
        f"{result['max_in_flight']}  lease {SEND_LEASE}"
    )
    return result


def fan_out_figures(posts: list[float], reveals: list[float], channels: int) -> dict[str, float]:
    return {
        "posted": float(len(posts)),
        "revealed": float(len(reveals)),
        "channels": float(channels),
        "post_max_s": max(posts, default=float("nan")),
        "post_p99_s": quantile(posts, 0.99),
        "reveal_max_s": max(reveals, default=float("nan")),
        "reveal_p99_s": quantile(reveals, 0.99),
        "first_post_s": min(posts, default=float("nan")),
    }


def _cache_part(result: dict[str, float], kind: str) -> str:
    """`missed 9,730 answers p99 58.3 ms`, or `missed no answers` (no p99 of nothing)."""
    count = result[f"answers during, {kind}"]
    if not count:
        return f"{kind} no answers"
    return f"{kind} {count:,.0f} answers p99 {result[f'answer_p99_ms during, {kind}']:.1f} ms"


def print_answers(result: dict[str, float], errs: str) -> None:
    print(
        f"answers: {result['answers']:,.0f}  p50 {result['answer_p50_ms']:.1f} ms  p99 {result['answer_p99_ms']:.1f} "
        f"ms (target < 20)  p99.9 {result['answer_p999_ms']:.1f} ms (target < 50)  max {result['answer_max_ms']:.0f} "
        f"ms  refused/closed: {errs}"
    )
    windows = ("before 09:00", "during the fan-out", "after it")
    print("answer p99 by when they came: " + ", ".join(f"{k} {result[f'answer_p99_ms {k}']:.1f} ms" for k in windows))
    print("during the fan-out, by the round cache: " + ", ".join(_cache_part(result, k) for k in ("missed", "cached")))
    bins = sorted((int(k.rsplit(" ", 1)[1]), v) for k, v in result.items() if k.startswith("p99 bin "))
    print(f"answer p99 by {BIN:g} s of the fan-out: " + ", ".join(f"{k * BIN:g}s {v:.1f} ms" for k, v in bins))
    print(
        f"leaderboard reads p99 {result['read_p99_ms']:.1f} ms; answer p99 during the fan-out / before 09:00: "
        f"{split_ratio(result):.2f} (target <= 2 with the roles split)"
    )


def print_wal(result: dict[str, Any]) -> None:
    """PostgreSQL: the server's WAL and checkpoints in the loaded minute (a checkpoint there shows in the tail)."""
    if "wal_mb" in result:
        print(
            f"the server in the loaded minute: {result['wal_mb']:,.0f} MB of WAL ({result['wal_kb_per_channel']:.1f} "
            f"KB a channel), {result['checkpoints']:.0f} checkpoints (max_wal_size {result['max_wal_size']})"
        )


def print_fan_out(result: dict[str, float], expected: int) -> None:
    channels = result["channels"]
    print(
        f"posted {result['posted']:,.0f}/{channels:,.0f}: first {result['first_post_s']:.1f} s, p99 "
        f"{result['post_p99_s']:.1f} s, max {result['post_max_s']:.1f} s after 09:00 (target <= 60 s)"
    )
    print(
        f"revealed {result['revealed']:,.0f}/{channels:,.0f}: p99 {result['reveal_p99_s']:.1f} s, max "
        f"{result['reveal_max_s']:.1f} s after 09:00 (target <= 60 s)"
    )
    lanes = ", ".join(f"{k.removesuffix('_last_s')} {v:.1f} s" for k, v in result.items() if k.endswith("_last_s"))
    print(f"last post or reveal per platform lane: {lanes}")
    print(
        f"core per channel (quiet day, post + reveal, CPU): {result['core_ms_per_channel']:.3f} ms (target < 0.5)"
        f"  [{result['bare_done']:,.0f}/{expected:,} sends in {result['bare_wall_s']:.1f} s; rounds without answers]"
    )
    print(
        f"the same, revealing the loaded day's rounds ({result['answers_per_loaded_round']:,.0f} answers each, "
        f"scored with their cards): {result['scoring_day_ms_per_channel']:.3f} ms  "
        f"[{result['quiet_done']:,.0f}/{expected:,} sends in {result['quiet_wall_s']:.1f} s]"
    )


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("--channels", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rate", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=50)
    parser.add_argument("--discord-share", type=float, default=0.1)
    parser.add_argument("--answers-per-round", type=int, default=20, help="answers scored per round")
    parser.add_argument("--store", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--url", default=DEFAULT_URL, help="PostgreSQL server (a throwaway database is made)")
    parser.add_argument("--roles", default="", help="interactive,delivery: the fan-out in a second process")
    parser.add_argument(
        "--delivery-nice", type=int, default=DEFAULT_DELIVERY_NICE, help="with --roles: STUDYBOT_DELIVERY_NICE"
    )
    parser.add_argument(
        "--delivery-rate", type=int, default=DEFAULT_DELIVERY_RATE, help="with --roles: STUDYBOT_DELIVERY_RATE"
    )
    parser.add_argument("--worker", default="", help=argparse.SUPPRESS)  # the split run's delivery process
    parser.add_argument("--t0", type=float, default=0.0, help=argparse.SUPPRESS)  # its monotonic start
    return parser.parse_args(argv)


async def main() -> None:
    tune_gc()  # as the bot does at start (bot/app/cli.py)
    logging.basicConfig(level=logging.ERROR)
    args = arguments()
    if args.worker or args.roles:
        from bench import daily_roles

        await daily_roles.main(args)
        return
    make = sqlite_store() if args.store == "sqlite" else postgres_store(args.url)
    async with make as store:
        await run(store, args.store, args)


if __name__ == "__main__":
    asyncio.run(main())
