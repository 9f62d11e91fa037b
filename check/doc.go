// Package check holds the invariant checkers zcsim runs after every event:
// in unit and property tests, in `zcsim run` and in exploration. They are
// separate objects fed by the system, in the manner of TigerBeetle's VOPR
// checkers: the model never asks them anything, it tells a Monitor what
// happened, and Monitor.Check compares that with the state of the Host.
//
// # Feeding a Monitor
//
//	m := check.NewMonitor()
//	m.Tracked(sk, task)        // register a socket (hooks sk.OnNotify) and its task
//	m.Before(sk)               // optional: sk_zckey and optmem as a call starts
//	r := …sendmsg…
//	m.Sent(sk, label, r, buf)  // after every send call, failed ones included
//	rec, _ := sk.RecvErrqueue()
//	m.Read(sk, rec)            // after every error-queue read
//	m.RxQueued(sk, b)          // when an skb reaches a receive queue
//	vs := m.Check(h, quiescent)
//
// Notified (called through sk.OnNotify, which Tracked installs) sees every
// notification as __msg_zerocopy_callback hands it to the error queue.
// Calls on one socket are assumed serialized (the socket lock): Sent
// reports them in the order they return.
//
// Check returns every violation at once, like testing/fstest.TestFS: the
// ones the model reported itself (Host.TakeViolations), the ones the
// Monitor saw as events arrived, and those the current state shows. Each
// names its rule (kernel.Rule), the object, the step and that object's
// history. Event violations are returned once; a broken state is reported
// by every Check while it lasts.
//
// Check(h, true) is for quiescence: no call in progress, no packet in
// flight, no timer pending that would free an skb. Skbs may still sit on
// socket queues; they are the roots of the leak check (error-queue records,
// Monitor.QueueSkbs, Monitor.PathSkbs — frames held on a path and
// transmissions a device has not completed, whatever became of their
// socket — and skbs reported by RxQueued that are still live).
// A closed socket's error queue is a root only while something reached
// from the other roots holds the socket (an skb charged to it, a uarg of
// it): sk_destruct, which purges the queue, waits for those, so a queue
// that only keeps itself alive is the leak cycle of bug B14.
// With every queue empty, only user pages and open sockets may remain.
//
// # Rules
//
// Rule ids (kernel.RuleIDs), at each Sent:
//
//	r.ZC ⇒ (r.Err = 0 ∧ r.N ≥ 0 ∨ r.FailedAfterID) ∧ r.ID = next ∧ sk_zckey = r.ID+1 ∧ r.ID ∈ r.Uarg's range
//	¬r.ZC ⇒ sk_zckey = sk_zckey at Before (or next, without Before)
//
// where next is the id after the last one Sent reported (a notify.Ledger
// per socket), all mod 2^32. A call may fail and still have consumed an id
// only where the kernel does so (sock.SendResult.FailedAfterID:
// udp_send_skb frees a datagram its UDP_SEGMENT checks refuse, which
// completes the uarg). Before also checks that sk_zckey did not move
// between calls. At quiescence, sk_zckey = next on every open socket.
//
// Rule notify-once (kernel.RuleNotifyOnce), at each Notified: the socket
// is not SOCK_DEAD (unless Profile.NotifyDeadSocket, the RFC v2), len ≥ 1, and each id of [lo, lo+len-1] (wrapping) is
// either sent and not yet notified, or allocated by the call in progress
// (in [next, sk_zckey)) and not yet notified; such an early notification
// (TCP's copy path completes inside the call) is matched when Sent reports
// the id. A merged notification must extend the record at the profile's
// merge end exactly (lo = hi+1). At each Read the record equals the oldest
// zerocopy record the notifications built, and its ids are outstanding in
// the Ledger. At each Check the zerocopy records of every tracked socket's
// error queue equal those built from the notifications. At quiescence,
// every id sent on an open socket is notified or still covered by a live
// uarg of that socket (held by a queued skb), and no early notification is
// left unmatched. A dead socket gets no notification at all.
//
// Rule notify-after-pages (kernel.RuleNotifyAfterPages), at the Check
// that follows a notification (the end of the event that queued it): no
// page of the user buffer of a send it covers is in flight
// (mm.Buffer.InFlight), unless an outstanding send uses the same page. It
// is checked at the event boundary, not inside the callback, because
// skb_release_data completes the uarg before it unrefs the frags: the user
// cannot read the notification before the event ends.
//
// Rule refcount (kernel.RuleRefcount), at every Check:
//
//	dataref(shinfo) = #live skbs using it
//	holders(uarg) ∋ shinfo exactly once ⇔ shinfo points at uarg with SKBFL_ZEROCOPY_ENABLE ∧ ¬nouarg
//	refs(page) ≥ floor + #live frags on it   (floor 1 for user pages, 0 for kernel pages)
//	no frag on a freed page; no uarg outliving its socket
//	sk_refcnt ≥ (open ? 1 : 0) + #live uargs of the socket
//
// and at quiescence no uarg, skb, shinfo or kernel page is live unless it
// is reachable from a root (above), no user page is in flight unless a
// reachable frag holds it, no reachable uarg has a holder other than a
// shared info (a send call's reference never dropped), and no closed socket
// is alive without a uarg holding it or an skb charged to it. Each survivor is reported with its
// holders and history.
//
// Rule accounting (kernel.RuleAccounting), at every Check:
//
//	sk_omem_alloc = Σ truesize(live msgzc uargs of sk) + Σ truesize(queued zerocopy records)
//	              + Σ truesize(live skbs with sock_ofree on sk) + OtherOptmem(sk)
//	user.locked_vm = Σ Mmp.NumPg of live uargs charged to the user
//	task.PinnedVM  = Σ Mmp.NumPg of live uargs charged to the task (bug memlock-per-process)
//
// (under bug notify-wmem the uarg and record charges move to sk_wmem_alloc);
// at quiescence sk_wmem_alloc, sk_wmem_queued and sk_rmem_alloc equal the
// truesize of the live skbs charged to them (plus, for rmem, the queued
// non-zerocopy records). An skb is charged to its skb->sk
// (sock.OwnerSock): its owner, or the socket an owner's destructor ends
// in (tpacket_destruct_skb calls sock_wfree), so a ring frame's skb a
// device has not completed holds its socket's charge. At each Sent whose uarg carries a page charge, on
// a task without CAP_IPC_LOCK (and, where the profile exempts it, without
// an unlimited RLIMIT_MEMLOCK): the charged counter ≤ RLIMIT_MEMLOCK>>12
// of the calling task. This is the admission test of
// mm_account_pinned_pages checked right after it ran. It is deliberately
// not a standing invariant: locked_vm is per user and the limit per task,
// so a task with a low limit may see locked_vm above it because of another
// task's sends, and a limit lowered after charging leaves earlier charges
// in place. After Before, a call that allocated a uarg must have passed
// sock_omalloc's test omem + SKB_TRUESIZE(0) ≤ optmem_max, omem the least
// sk_omem_alloc seen at any Check since Before: packet_snd sleeps for
// send-buffer space before it allocates its uarg, and completions that run
// meanwhile free optmem.
//
// Rule copied (kernel.RuleCopied): at each Notified the notification's
// Copied is exactly ¬uarg.Zerocopy (the AND of every reference drop's
// success), and is set when a send it covers reported its data copied
// (SendResult.Copied). A record read, or queued at Check, has the code of
// the notification that created it. A merged notification keeps the code
// of the record it extends, so a COPIED range merged into a non-COPIED
// record is reported as zerocopy (and vice versa): the kernel's known
// information loss (skb_zerocopy_notify_extend does not compare ee_code),
// not a violation.
//
// Rule rx-pages (kernel.RuleRxPages), at each RxQueued: no page of the
// skb, frag_list included, is a user page, and the skb holds no uarg
// (skb_orphan_frags_rx released it; bug copy-ubufs-no-frags breaks this).
// RxLooped reports an skb delivered by a device under the loopback switch
// (sim.Device.OrphanRxPlain), to which the rule does not apply.
//
// # Incremental checking
//
// A Check that is not at quiescence examines only what changed: the
// objects the Host lists as created or noted since the last Check
// (kernel.Host.Touched), the pages put_page or a frag's attachment left
// with fewer references than their mapping and frags hold (mm.Uncovered),
// the sockets the hooks above heard of, and what their checks read as it
// is now — an skb's shared info and owner, a shared info's uarg, a uarg's
// socket and the holders whose references of it moved. Each state rule is
// checked where it can break. The sums the rules compare with a
// refcount or a charge are counters the model keeps at the operations
// that move them: a shared info's live skbs (skb.SharedInfo.Skbs, kept
// where an skb is made on it, moves off it or is freed), a page's frags
// of live shared infos (mm.Page.Frags, kept where a frag is put on a page
// or taken off), a socket's live uargs and their optmem
// (sock.Sock.LiveUargs, kept at msg_zerocopy_alloc and at the uarg's
// free), what live uargs charge a user or task (ubuf.User.Charged, kept
// at mm_account_pinned_pages, its undoing and the uarg's free), and the
// holders whose references of a uarg moved since it was last looked at
// (ubuf.Info.Moved).
// An operation that takes a relation away without touching its other end
// lowers both sides of that rule at once (a frag leaving a page, an skb
// leaving a shared info with its dataref), so it cannot break it. Where a
// counter says that a freed object is still used (a live skb on a freed
// shared info, a live uarg of a freed socket), its users are found by a
// walk of the live objects: that costs when a rule is broken, not at each
// step. So a step costs in proportion to what it touched, not to what is
// alive.
//
// It relies on the model noting every change of the state the rules read
// (kernel.Tracked.Note) and changing frags, skbs' shared infos and uarg
// charges only through the operations that keep the counters: a change
// made behind the model's back is seen at the next full sweep, not at
// once. A full sweep of every live object, which counts everything
// afresh, runs on the first Check, at quiescence, and on every Check when
// Monitor.Full is set; tests run both ways on the examples, the bug
// catalog and generated scenarios and require the same violations at the
// same steps, and break each rule in turn to require that the incremental
// check finds it when the full sweep does.
//
// # Linux correspondence
//
// The rules restate Documentation/networking/msg_zerocopy.rst's contract
// and the refcount and accounting discipline of msg_zerocopy_alloc,
// msg_zerocopy_realloc, msg_zerocopy_put_abort, __msg_zerocopy_callback,
// skb_zerocopy_notify_extend, skb_release_data, sock_omalloc and
// mm_account_pinned_pages. docs/invariants.md states each rule for users.
package check
