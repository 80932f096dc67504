package assistant

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Evaluate computes an arithmetic expression with a small recursive-descent
// parser (no eval): numbers, + - * / % ^, unary minus, parentheses and a few
// functions.
func Evaluate(expr string) (float64, error) {
	p := &calcParser{src: expr}
	p.next()
	v, err := p.expr()
	if err != nil {
		return 0, err
	}
	if p.tok != "" {
		return 0, fmt.Errorf("unexpected %q in expression", p.tok)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, errors.New("the result is not a finite number")
	}
	return v, nil
}

func formatNumber(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}

type calcParser struct {
	src   string
	pos   int
	tok   string
	depth int
}

func (p *calcParser) next() {
	for p.pos < len(p.src) && unicode.IsSpace(rune(p.src[p.pos])) {
		p.pos++
	}
	if p.pos >= len(p.src) {
		p.tok = ""
		return
	}
	c := p.src[p.pos]
	start := p.pos
	switch {
	case c >= '0' && c <= '9' || c == '.':
		for p.pos < len(p.src) && (p.src[p.pos] >= '0' && p.src[p.pos] <= '9' || p.src[p.pos] == '.' || p.src[p.pos] == 'e' || p.src[p.pos] == 'E' ||
			(p.pos > start && (p.src[p.pos] == '-' || p.src[p.pos] == '+') && (p.src[p.pos-1] == 'e' || p.src[p.pos-1] == 'E'))) {
			p.pos++
		}
	case unicode.IsLetter(rune(c)):
		for p.pos < len(p.src) && unicode.IsLetter(rune(p.src[p.pos])) {
			p.pos++
		}
	case c == '*' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
		p.pos += 2
		p.tok = "^"
		return
	default:
		p.pos++
	}
	p.tok = p.src[start:p.pos]
}

func (p *calcParser) expr() (float64, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > 100 {
		return 0, errors.New("expression is nested too deeply")
	}
	v, err := p.term()
	for err == nil && (p.tok == "+" || p.tok == "-") {
		op := p.tok
		p.next()
		var r float64
		if r, err = p.term(); err == nil {
			if op == "+" {
				v += r
			} else {
				v -= r
			}
		}
	}
	return v, err
}

func (p *calcParser) term() (float64, error) {
	v, err := p.power()
	for err == nil && (p.tok == "*" || p.tok == "/" || p.tok == "%") {
		op := p.tok
		p.next()
		var r float64
		if r, err = p.power(); err != nil {
			break
		}
		switch op {
		case "*":
			v *= r
		case "/":
			if r == 0 {
				return 0, errors.New("division by zero")
			}
			v /= r
		case "%":
			if r == 0 {
				return 0, errors.New("division by zero")
			}
			v = math.Mod(v, r)
		}
	}
	return v, err
}

func (p *calcParser) power() (float64, error) {
	base, err := p.unary()
	if err != nil || p.tok != "^" {
		return base, err
	}
	p.next()
	exp, err := p.power() // right-associative
	if err != nil {
		return 0, err
	}
	return math.Pow(base, exp), nil
}

func (p *calcParser) unary() (float64, error) {
	switch p.tok {
	case "-":
		p.next()
		v, err := p.unary()
		return -v, err
	case "+":
		p.next()
		return p.unary()
	}
	return p.primary()
}

var calcFuncs = map[string]func(args []float64) (float64, error){
	"sqrt": oneArg(func(x float64) (float64, error) {
		if x < 0 {
			return 0, errors.New("sqrt of a negative number")
		}
		return math.Sqrt(x), nil
	}),
	"abs":   oneArg(func(x float64) (float64, error) { return math.Abs(x), nil }),
	"round": oneArg(func(x float64) (float64, error) { return math.Round(x), nil }),
	"floor": oneArg(func(x float64) (float64, error) { return math.Floor(x), nil }),
	"ceil":  oneArg(func(x float64) (float64, error) { return math.Ceil(x), nil }),
	"min":   manyArgs(math.Min),
	"max":   manyArgs(math.Max),
}

func oneArg(f func(float64) (float64, error)) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) {
		if len(a) != 1 {
			return 0, fmt.Errorf("function takes one argument, got %d", len(a))
		}
		return f(a[0])
	}
}

func manyArgs(f func(a, b float64) float64) func([]float64) (float64, error) {
	return func(a []float64) (float64, error) {
		if len(a) == 0 {
			return 0, errors.New("function needs at least one argument")
		}
		v := a[0]
		for _, x := range a[1:] {
			v = f(v, x)
		}
		return v, nil
	}
}

func (p *calcParser) primary() (float64, error) {
	tok := p.tok
	switch {
	case tok == "":
		return 0, errors.New("expression ended early")
	case tok == "(":
		p.next()
		v, err := p.expr()
		if err != nil {
			return 0, err
		}
		if p.tok != ")" {
			return 0, errors.New("missing )")
		}
		p.next()
		return v, nil
	case tok[0] >= '0' && tok[0] <= '9' || tok[0] == '.':
		v, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return 0, fmt.Errorf("bad number %q", tok)
		}
		p.next()
		return v, nil
	case unicode.IsLetter(rune(tok[0])):
		name := strings.ToLower(tok)
		if name == "pi" {
			p.next()
			return math.Pi, nil
		}
		if name == "e" {
			p.next()
			return math.E, nil
		}
		f, ok := calcFuncs[name]
		if !ok {
			return 0, fmt.Errorf("unknown function %q", tok)
		}
		p.next()
		if p.tok != "(" {
			return 0, fmt.Errorf("%s needs parentheses", name)
		}
		p.next()
		var args []float64
		for p.tok != ")" {
			v, err := p.expr()
			if err != nil {
				return 0, err
			}
			args = append(args, v)
			if p.tok == "," {
				p.next()
			} else if p.tok != ")" {
				return 0, fmt.Errorf("missing ) after arguments of %s", name)
			}
		}
		p.next()
		return f(args)
	}
	return 0, fmt.Errorf("unexpected %q in expression", tok)
}
