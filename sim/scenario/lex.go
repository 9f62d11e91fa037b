package scenario

import "strings"

// tokKind classifies a token of a line.
type tokKind uint8

const (
	tWord   tokKind = iota // a run of characters that are not blanks or punctuation
	tLBrack                // [
	tRBrack                // ]
	tComma                 // ,
	tEq                    // =
	tPipe                  // |
	tArrow                 // =>
	tLBrace                // {
	tRBrace                // }
)

// token is one token of a line; col is its 1-based byte column.
type token struct {
	kind tokKind
	text string
	col  int
}

// scanned is one line cut into tokens, with its comment.
type scanned struct {
	text       string  // the line without its newline
	toks       []token // tokens before the comment
	comment    string  // the comment's text after "#", trimmed
	hasComment bool
	codeEnd    int // byte offset where the comment starts, or len(text)
}

const blanks = " \t\r"

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// isPunct reports whether c ends a word.
func isPunct(c byte) bool {
	switch c {
	case '#', '[', ']', ',', '=', '|', '{', '}':
		return true
	}
	return isBlank(c)
}

// scanLine cuts one line into tokens. It never fails: every byte belongs to a
// blank, a token or the comment.
func scanLine(line string) scanned {
	s := scanned{text: line, codeEnd: len(line)}
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case isBlank(c):
			i++
		case c == '#':
			s.codeEnd = i
			s.hasComment = true
			s.comment = strings.Trim(line[i+1:], blanks)
			return s
		case c == '=' && i+1 < len(line) && line[i+1] == '>':
			s.toks = append(s.toks, token{tArrow, "=>", i + 1})
			i += 2
		case isPunct(c):
			s.toks = append(s.toks, token{punctKind(c), line[i : i+1], i + 1})
			i++
		default:
			j := i
			for j < len(line) && !isPunct(line[j]) {
				j++
			}
			s.toks = append(s.toks, token{tWord, line[i:j], i + 1})
			i = j
		}
	}
	return s
}

func punctKind(c byte) tokKind {
	switch c {
	case '[':
		return tLBrack
	case ']':
		return tRBrack
	case ',':
		return tComma
	case '=':
		return tEq
	case '{':
		return tLBrace
	case '}':
		return tRBrace
	}
	return tPipe
}
