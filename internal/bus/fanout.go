package bus

// bufferSize is how many undelivered messages one subscription holds before
// its consumer is considered too slow and its channel is closed.
const bufferSize = 256

// subscriber is the delivering end of one Subscribe call.
type subscriber struct {
	ch chan Message
	// stop cancels the context.AfterFunc that removes the subscriber when
	// its context ends, so that a subscriber removed for another reason
	// leaves nothing behind.
	stop   func() bool
	closed bool
}

func newSubscriber() *subscriber {
	return &subscriber{ch: make(chan Message, bufferSize)}
}

// topics maps each channel name to its local subscribers. It is shared by
// every implementation and is not safe for concurrent use: each bus guards
// it with its own mutex, which also keeps deliveries to one subscriber in
// order.
type topics map[string]map[*subscriber]struct{}

// add registers s on channel and reports whether s is the channel's first
// local subscriber.
func (ts topics) add(channel string, s *subscriber) (first bool) {
	subs, ok := ts[channel]
	if !ok {
		subs = make(map[*subscriber]struct{})
		ts[channel] = subs
	}
	subs[s] = struct{}{}
	return !ok
}

// remove closes s and unregisters it from channel, reporting whether
// channel is left without local subscribers. Removing a subscriber that is
// already closed does nothing and reports false.
func (ts topics) remove(channel string, s *subscriber) (last bool) {
	if s.closed {
		return false
	}
	s.closed = true
	close(s.ch)
	if s.stop != nil {
		s.stop()
	}
	subs, ok := ts[channel]
	if !ok {
		return false
	}
	delete(subs, s)
	if len(subs) > 0 {
		return false
	}
	delete(ts, channel)
	return true
}

// deliver hands msg to every subscriber of msg.Channel without blocking. A
// subscriber whose buffer is full is closed and removed. deliver reports how
// many subscribers it dropped and whether the channel was left without any.
func (ts topics) deliver(msg Message) (dropped int, emptied bool) {
	for s := range ts[msg.Channel] {
		select {
		case s.ch <- msg:
		default:
			dropped++
			if ts.remove(msg.Channel, s) {
				emptied = true
			}
		}
	}
	return dropped, emptied
}

// closeAll closes every subscriber and forgets every channel.
func (ts topics) closeAll() {
	for channel, subs := range ts {
		for s := range subs {
			ts.remove(channel, s)
		}
	}
}
