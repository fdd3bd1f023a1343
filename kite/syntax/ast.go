package syntax

// Node is any node of the syntax tree.
type Node interface {
	Pos() Pos // the position of the node's first token
}

// Expr is an expression node.
type Expr interface {
	Node
	expr()
}

// Stmt is a statement node.
type Stmt interface {
	Node
	stmt()
}

// File is a parsed source file.
type File struct {
	Name  string
	Stmts []Stmt
}

// ---- Expressions ----

// Ident is a name: a variable, function or parameter.
type Ident struct {
	NamePos Pos
	Name    string
}

// Literal is an int, float, plain string, true, false or nil literal.
// Value holds int64, float64, string, bool or nil according to Kind (INT, FLOAT, STRING,
// TRUE, FALSE, NIL).
type Literal struct {
	ValuePos Pos
	Kind     Token
	Raw      string // the literal as written
	Value    any
}

// InterpString is a string literal with ${expr} parts: Parts alternate freely between
// *Literal strings (already unescaped) and the embedded expressions, in source order.
type InterpString struct {
	QuotePos Pos
	Parts    []Expr
}

// ListExpr is [a, b, c].
type ListExpr struct {
	Lbrack Pos
	Elems  []Expr
}

// MapEntry is one key: value pair of a map literal. A bare identifier key (k: 1) is
// parsed as a *Literal string.
type MapEntry struct {
	Key, Value Expr
}

// MapExpr is {"k": 1, k2: 2}.
type MapExpr struct {
	Lbrace  Pos
	Entries []MapEntry
}

// FuncLit is a function: fn(a, b) { ... }, or the function of an FnStmt (Name set).
type FuncLit struct {
	FnPos  Pos
	Name   string // "" for an anonymous function literal
	Params []*Ident
	Body   *Block
}

// UnaryExpr is -x or not x.
type UnaryExpr struct {
	OpPos Pos
	Op    Token // MINUS or NOT
	X     Expr
}

// BinaryExpr is x op y, including the short-circuit AND and OR.
type BinaryExpr struct {
	X     Expr
	OpPos Pos
	Op    Token
	Y     Expr
}

// CallExpr is f(args).
type CallExpr struct {
	Fn     Expr
	Lparen Pos
	Args   []Expr
}

// IndexExpr is x[i].
type IndexExpr struct {
	X      Expr
	Lbrack Pos
	Index  Expr
}

// DotExpr is x.name, the same as x["name"].
type DotExpr struct {
	X    Expr
	Dot  Pos
	Name *Ident
}

// ParenExpr is (x); kept so positions and printing stay faithful.
type ParenExpr struct {
	Lparen Pos
	X      Expr
}

func (x *Ident) Pos() Pos        { return x.NamePos }
func (x *Literal) Pos() Pos      { return x.ValuePos }
func (x *InterpString) Pos() Pos { return x.QuotePos }
func (x *ListExpr) Pos() Pos     { return x.Lbrack }
func (x *MapExpr) Pos() Pos      { return x.Lbrace }
func (x *FuncLit) Pos() Pos      { return x.FnPos }
func (x *UnaryExpr) Pos() Pos    { return x.OpPos }
func (x *BinaryExpr) Pos() Pos   { return x.X.Pos() }
func (x *CallExpr) Pos() Pos     { return x.Fn.Pos() }
func (x *IndexExpr) Pos() Pos    { return x.X.Pos() }
func (x *DotExpr) Pos() Pos      { return x.X.Pos() }
func (x *ParenExpr) Pos() Pos    { return x.Lparen }

func (*Ident) expr()        {}
func (*Literal) expr()      {}
func (*InterpString) expr() {}
func (*ListExpr) expr()     {}
func (*MapExpr) expr()      {}
func (*FuncLit) expr()      {}
func (*UnaryExpr) expr()    {}
func (*BinaryExpr) expr()   {}
func (*CallExpr) expr()     {}
func (*IndexExpr) expr()    {}
func (*DotExpr) expr()      {}
func (*ParenExpr) expr()    {}

// ---- Statements ----

// LetStmt is let x = e, or const X = e when Const.
type LetStmt struct {
	LetPos Pos
	Const  bool
	Name   *Ident
	Value  Expr
}

// FnStmt is fn name(params) { body }.
type FnStmt struct {
	FnPos Pos
	Name  *Ident
	Func  *FuncLit
}

// AssignStmt is target = e or target op= e, where Target is an *Ident, *IndexExpr or *DotExpr.
type AssignStmt struct {
	Target Expr
	OpPos  Pos
	Op     Token // EQ, PLUS_EQ, MINUS_EQ, STAR_EQ, SLASH_EQ, PERCENT_EQ
	Value  Expr
}

// ExprStmt is an expression evaluated for its effect (usually a call).
type ExprStmt struct {
	X Expr
}

// IfStmt is if cond { } else ...; Else is nil, a *Block or an *IfStmt.
type IfStmt struct {
	IfPos Pos
	Cond  Expr
	Then  *Block
	Else  Stmt
}

// WhileStmt is while cond { }.
type WhileStmt struct {
	WhilePos Pos
	Cond     Expr
	Body     *Block
}

// ForStmt is for x in e { } (Value nil) or for k, v in e { }.
type ForStmt struct {
	ForPos Pos
	Key    *Ident
	Value  *Ident
	X      Expr
	Body   *Block
}

// BranchStmt is break or continue.
type BranchStmt struct {
	TokPos Pos
	Tok    Token // BREAK or CONTINUE
}

// ReturnStmt is return [e].
type ReturnStmt struct {
	ReturnPos Pos
	Result    Expr // nil for a bare return
}

// Block is { stmts }; it is also a statement (a nested scope).
type Block struct {
	Lbrace Pos
	Stmts  []Stmt
	Rbrace Pos
}

func (s *LetStmt) Pos() Pos    { return s.LetPos }
func (s *FnStmt) Pos() Pos     { return s.FnPos }
func (s *AssignStmt) Pos() Pos { return s.Target.Pos() }
func (s *ExprStmt) Pos() Pos   { return s.X.Pos() }
func (s *IfStmt) Pos() Pos     { return s.IfPos }
func (s *WhileStmt) Pos() Pos  { return s.WhilePos }
func (s *ForStmt) Pos() Pos    { return s.ForPos }
func (s *BranchStmt) Pos() Pos { return s.TokPos }
func (s *ReturnStmt) Pos() Pos { return s.ReturnPos }
func (s *Block) Pos() Pos      { return s.Lbrace }

func (*LetStmt) stmt()    {}
func (*FnStmt) stmt()     {}
func (*AssignStmt) stmt() {}
func (*ExprStmt) stmt()   {}
func (*IfStmt) stmt()     {}
func (*WhileStmt) stmt()  {}
func (*ForStmt) stmt()    {}
func (*BranchStmt) stmt() {}
func (*ReturnStmt) stmt() {}
func (*Block) stmt()      {}

// StmtKind names a statement's kind as the debugger reports it (line table, perf timeline).
func StmtKind(s Stmt) string {
	switch s := s.(type) {
	case *LetStmt:
		if s.Const {
			return "Const"
		}
		return "Let"
	case *FnStmt:
		return "Fn"
	case *AssignStmt:
		return "Assign"
	case *ExprStmt:
		return "ExprStmt"
	case *IfStmt:
		return "If"
	case *WhileStmt:
		return "While"
	case *ForStmt:
		return "For"
	case *BranchStmt:
		if s.Tok == BREAK {
			return "Break"
		}
		return "Continue"
	case *ReturnStmt:
		return "Return"
	case *Block:
		return "Block"
	}
	return "Stmt"
}

// Parse and ParseExpr are implemented in parse.go:
//
//	func Parse(filename string, src []byte) (*File, error)   // error is an ErrorList
//	func ParseExpr(filename string, src []byte) (Expr, error) // one expression, for watches
