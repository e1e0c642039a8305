package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// CodeBlock is one fenced code block of a markdown text.
type CodeBlock struct {
	Lang string // the fence's info word: sh, text, python, or "" for none
	Body string // the lines between the fences, each ending in a newline
	Line int    // the opening fence's line, counted from 1
}

// fence matches a line that opens or closes a fenced code block (``` or
// ~~~, indented by at most three spaces, as CommonMark allows).
var fence = regexp.MustCompile("^ {0,3}(```+|~~~+)\\s*([^`\\s]*)")

// lines splits a text into its lines and tells, for each, whether it lies
// inside a fenced code block (the fences themselves count as inside).
func lines(text string) ([]string, []bool) {
	ls := strings.Split(text, "\n")
	in := make([]bool, len(ls))
	open := ""
	for i, l := range ls {
		m := fence.FindStringSubmatch(l)
		switch {
		case open == "" && m != nil:
			open = m[1]
			in[i] = true
		case open != "" && m != nil && m[2] == "" && strings.HasPrefix(m[1], open[:1]) && len(m[1]) >= len(open):
			open = ""
			in[i] = true
		default:
			in[i] = open != ""
		}
	}
	return ls, in
}

// CodeBlocks returns the fenced code blocks of text, in order. A block left
// open runs to the end of the text.
func CodeBlocks(text string) []CodeBlock {
	ls := strings.Split(text, "\n")
	var out []CodeBlock
	var cur *CodeBlock
	var body strings.Builder
	open := ""
	for i, l := range ls {
		m := fence.FindStringSubmatch(l)
		switch {
		case cur == nil && m != nil:
			cur, open = &CodeBlock{Lang: m[2], Line: i + 1}, m[1]
			body.Reset()
		case cur != nil && m != nil && m[2] == "" && strings.HasPrefix(m[1], open[:1]) && len(m[1]) >= len(open):
			cur.Body = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(l + "\n")
		}
	}
	if cur != nil {
		cur.Body = body.String()
		out = append(out, *cur)
	}
	return out
}

// heading matches an ATX heading: one to six #, a space, the text, and an
// optional closing run of #.
var heading = regexp.MustCompile(`^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`)

// Headings returns the text of every heading outside code blocks, in order.
func Headings(text string) []string {
	ls, in := lines(text)
	var out []string
	for i, l := range ls {
		if in[i] {
			continue
		}
		if m := heading.FindStringSubmatch(l); m != nil {
			out = append(out, m[2])
		}
	}
	return out
}

// inlineLink matches a link's or an image's text and target in rendered
// markdown: [text](target) or [text](target "title").
var inlineLink = regexp.MustCompile(`!?\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)

// Anchor returns the fragment GitHub gives a heading (github-slugger, which
// GitHub's renderer follows): the heading's rendered text in lower case,
// with every character that is not a letter, a mark, a number, "_", "-" or
// a space dropped, and each space made a "-". Emphasis marks, code spans'
// backticks and a link's brackets and target are not part of the text.
func Anchor(h string) string {
	h = inlineLink.ReplaceAllString(h, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Anchors returns the set of fragments the headings of text have: a
// heading whose fragment an earlier one already took gets "-1", then "-2",
// as on GitHub.
func Anchors(text string) map[string]bool {
	set := map[string]bool{}
	for _, h := range Headings(text) {
		a := Anchor(h)
		if set[a] {
			for n := 1; ; n++ {
				if c := a + "-" + strconv.Itoa(n); !set[c] {
					a = c
					break
				}
			}
		}
		set[a] = true
	}
	return set
}

// Link is one link or image of a markdown text.
type Link struct {
	Target string // as written: a URL, a path with or without a #fragment, or a #fragment alone
	Line   int    // counted from 1
}

// codeSpan matches an inline code span: a run of backticks, the code (which
// may run over lines), the same run.
var codeSpan = regexp.MustCompile("(?s)(`+)(.+?)(`+)")

// Prose returns text with the lines of its fenced code blocks (fences
// included) emptied: its prose, at the same line numbers.
func Prose(text string) string {
	ls, in := lines(text)
	for i := range ls {
		if in[i] {
			ls[i] = ""
		}
	}
	return strings.Join(ls, "\n")
}

// Links returns every inline link and image of text outside code blocks and
// code spans.
func Links(text string) []Link {
	prose := Prose(text)
	// Blank each code span, keeping its newlines so that lines still count.
	prose = codeSpan.ReplaceAllStringFunc(prose, func(s string) string {
		m := codeSpan.FindStringSubmatch(s)
		if m[1] != m[3] {
			return s // not a span: unequal runs
		}
		return strings.Map(func(r rune) rune {
			if r == '\n' {
				return r
			}
			return ' '
		}, s)
	})
	var out []Link
	for _, m := range inlineLink.FindAllStringSubmatchIndex(prose, -1) {
		target := strings.TrimSuffix(strings.TrimPrefix(prose[m[4]:m[5]], "<"), ">") // [text](<target>)
		out = append(out, Link{Target: target, Line: 1 + strings.Count(prose[:m[0]], "\n")})
	}
	return out
}

// external reports whether a link target leaves the repository: a URL with a
// scheme (https:, mailto:).
var external = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// BrokenLinks checks every relative link of the documentation under root:
// its file (relative to the linking file's folder) exists, and its #fragment,
// if any, is a heading of that file (or of the linking file, for a fragment
// alone). It returns one line per broken link, "FILE:LINE: TARGET: why".
func BrokenLinks(root string) ([]string, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(p string) (map[string]bool, error) {
		if a, ok := anchors[p]; ok {
			return a, nil
		}
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		anchors[p] = Anchors(string(b))
		return anchors[p], nil
	}
	var broken []string
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			return nil, err
		}
		for _, l := range Links(string(b)) {
			if external.MatchString(l.Target) {
				continue
			}
			bad := func(why string, args ...any) {
				broken = append(broken, fmt.Sprintf("%s:%d: %s: %s", f, l.Line, l.Target, fmt.Sprintf(why, args...)))
			}
			path, frag, _ := strings.Cut(l.Target, "#")
			target := f
			if path != "" {
				if strings.HasPrefix(path, "/") {
					bad("an absolute path: write it relative to %s", filepath.Dir(f))
					continue
				}
				target = filepath.ToSlash(filepath.Join(filepath.Dir(f), path))
				if strings.HasPrefix(target, "../") {
					bad("leaves the repository")
					continue
				}
				info, err := os.Stat(filepath.Join(root, target))
				if err != nil {
					bad("no file %s", target)
					continue
				}
				if frag != "" && (info.IsDir() || !strings.HasSuffix(target, ".md")) {
					bad("a #fragment on %s, which has no headings", target)
					continue
				}
			}
			if frag == "" {
				continue
			}
			a, err := anchorsOf(target)
			if err != nil {
				return nil, err
			}
			if !a[frag] {
				bad("%s has no heading #%s", target, frag)
			}
		}
	}
	return broken, nil
}
