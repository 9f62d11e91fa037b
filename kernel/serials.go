package kernel

// serialPageLen is how many consecutive serials one page of a serials
// index covers.
const serialPageLen = 256

// serials finds a live object by its serial. Serials are handed out in
// increasing order and most objects die young, so the index keeps pages
// of serialPageLen consecutive serials, found through a map by page
// number, and keeps the newest page at hand: creating an object and
// freeing a young one cost no map operation. A page goes when its last
// object does, except the newest, which stays for the serials to come:
// objects that die young would otherwise make and drop it over and over.
//
// The zero value is an empty index.
type serials struct {
	pages  map[uint64]*serialPage
	newest *serialPage
	// newestKey is the newest page's number.
	newestKey uint64
	// n counts the objects indexed.
	n int
}

// serialPage holds the live objects of one page's serials; n counts them.
type serialPage struct {
	objs [serialPageLen]*Tracked
	n    int
}

// page returns the page of serial, making it if make is set, or nil.
func (x *serials) page(serial uint64, make bool) *serialPage {
	key := serial / serialPageLen
	if x.newest != nil && x.newestKey == key {
		return x.newest
	}
	p := x.pages[key]
	if p == nil && make {
		if x.pages == nil {
			x.pages = map[uint64]*serialPage{}
		}
		p = new(serialPage)
		x.pages[key] = p
	}
	if p != nil && (x.newest == nil || key > x.newestKey) {
		if x.newest != nil && x.newest.n == 0 {
			delete(x.pages, x.newestKey) // kept while newest, now empty
		}
		x.newest, x.newestKey = p, key
	}
	return p
}

// put indexes t under serial.
//
// Preconditions: no live object has serial.
func (x *serials) put(serial uint64, t *Tracked) {
	p := x.page(serial, true)
	p.objs[serial%serialPageLen] = t
	p.n++
	x.n++
}

// get returns the live object of serial, or nil.
func (x *serials) get(serial uint64) *Tracked {
	if p := x.page(serial, false); p != nil {
		return p.objs[serial%serialPageLen]
	}
	return nil
}

// drop removes serial's object from the index.
func (x *serials) drop(serial uint64) {
	p := x.page(serial, false)
	if p == nil || p.objs[serial%serialPageLen] == nil {
		return
	}
	p.objs[serial%serialPageLen] = nil
	p.n--
	x.n--
	if p.n == 0 && p != x.newest {
		delete(x.pages, serial/serialPageLen)
	}
}
