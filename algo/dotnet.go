package algo

// PresetDotNet is ASP.NET Core's SlidingWindowRateLimiter
// (System.Threading.RateLimiting), read in dotnet/runtime.
//
// What .NET does. The limiter keeps _requestsPerSegment, an int per
// segment (SegmentsPerWindow of them), and _requestCount, the permits left,
// starting at PermitLimit. A request (one permit) is leased iff
// _requestCount ≥ 1 and nothing is queued; it is added to the current
// segment and taken from _requestCount. A denied request changes nothing:
// only admitted requests count. Replenishment moves the current segment
// one on, and the segment it lands on, SegmentsPerWindow segments old,
// gives its count back to _requestCount and is emptied. So a request is
// admitted iff the last S segments, the current one included, hold fewer
// than PermitLimit: windowlab's segmented window with S = SegmentsPerWindow.
//
// When segments turn. ReplenishmentPeriod is Window/SegmentsPerWindow. A
// standalone limiter with AutoReplenishment (the default) runs a Timer of
// that period from its own creation; each tick turns one segment if at
// least a period has passed on the Stopwatch since the last turn, and the
// last turn becomes the tick's own time. A partitioned limiter (one per
// client, RateLimitPartition.GetSlidingWindowLimiter: what the ASP.NET
// Core middleware uses per key) has no timer: its partitions are built
// with AutoReplenishment off, and DefaultPartitionedRateLimiter's shared
// heartbeat, every 100 ms, calls TryReplenish on each, which turns one
// segment once a period has passed since the last turn. A partition is
// created at its key's first request, and dropped once idle (all permits
// back) for over 10 s, to be created again at the next one.
//
// What windowlab models. Segments aligned to the calendar: multiples of
// W/S since the epoch plus Config.Offset, every segment exactly W/S long,
// each limiter's ring of S counts per client. Where .NET can differ: its
// edges start at the limiter's creation (a partition's: the client's
// first request), not the calendar; a late tick (a busy thread pool, or
// the partitions' 100 ms heartbeat) turns the segment late and moves every
// later edge with it, and a tick that comes a hair early is skipped to the
// next, so edges drift; windowlab's never do. With the timer's phase known
// and its ticks on time, Config.Offset = (creation mod W/S) reproduces it.
// QueueLimit: windowlab models 0, the options' default (an int property
// with no initializer): a denied request fails at once. With QueueLimit > 0
// a request with no permit waits in a queue for a segment to turn, a
// delayed outcome this preset does not model.
//
// Source: github.com/dotnet/runtime
// src/libraries/System.Threading.RateLimiting/src/System/Threading/RateLimiting/,
// SlidingWindowRateLimiter.cs at commit
// 9b1da975a3a028ae22ce7ffb4ca838dfe34aac59: L42 ReplenishmentPeriod =
// Window.Ticks / SegmentsPerWindow; L51 _requestCount = PermitLimit; L54
// _requestsPerSegment = new int[SegmentsPerWindow]; L57
// _lastReplenishmentTick = Stopwatch.GetTimestamp(); L59–61 the Timer when
// AutoReplenishment; L174 `if (_requestCount >= requestCount &&
// _requestCount != 0)`; L188–189 the lease adds to the current segment and
// takes from _requestCount; L96 and L146 FailedLease (AcquireCore; a full
// queue in WaitAsyncCore); L240 a turn only once a period has passed; L245
// _lastReplenishmentTick = nowTicks; L249–251 the next segment index, its
// old count read and zeroed; L258 _requestCount += oldSegmentRequestCount.
// RateLimitPartition.cs at commit 3d450df84e038a96935e200db5406bef071f502e,
// CreateSlidingWindowLimiter (`autoReplenishment: false`);
// DefaultPartitionedRateLimiter.cs at commit
// 9ccbfb3be48736daa5bb59f733f3fc47e99d0649: L16 _idleTimeLimit = 10 s, L37
// the heartbeat every TimeSpan.FromMilliseconds(100), Heartbeat() calling
// TryReplenish; FixedWindowRateLimiterOptions.cs at commit
// c6c88de9fae3d261c3031751d75520c0b652c486, `public int QueueLimit { get;
// set; }` (the settable options' shape, no initializer).
var PresetDotNet = Preset{
	Name: "dotnet", Title: "ASP.NET Core", Kind: KindSegmentedWindow,
	Rules: Rules{Segmented: SegmentedDotNet},
	Rule:  "SlidingWindowRateLimiter: the last SegmentsPerWindow segments' admitted requests < PermitLimit; segments of Window/SegmentsPerWindow, aligned to the calendar; QueueLimit 0",
	Source: "github.com/dotnet/runtime src/libraries/System.Threading.RateLimiting/src/System/Threading/RateLimiting/SlidingWindowRateLimiter.cs @9b1da975a3a028ae22ce7ffb4ca838dfe34aac59 " +
		"L174 `if (_requestCount >= requestCount && _requestCount != 0)`, L188 `_requestsPerSegment[_currentSegmentIndex] += requestCount;`, " +
		"L249–251 `_currentSegmentIndex = (_currentSegmentIndex + 1) % _options.SegmentsPerWindow;` then the old segment's count returned and zeroed; " +
		"DefaultPartitionedRateLimiter.cs @9ccbfb3be48736daa5bb59f733f3fc47e99d0649 L37 the 100 ms heartbeat calling TryReplenish",
	Takes: "segments: SegmentsPerWindow (scenario field segments:, --segments; without it, 4 or the largest number below that divides the window); the timer's phase and late ticks are not modelled: edges on the calendar",
}

// SegmentedPresets lists the segmented windows of real libraries.
var SegmentedPresets = []Preset{PresetDotNet}
