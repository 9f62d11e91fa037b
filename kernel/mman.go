package kernel

// Prot is the protection of mmap(2) (include/uapi/asm-generic/mman-common.h).
type Prot uint32

// Protections.
const (
	PROT_NONE  Prot = 0x0
	PROT_READ  Prot = 0x1
	PROT_WRITE Prot = 0x2
	PROT_EXEC  Prot = 0x4
)

// ProtNames names each protection bit.
var ProtNames = NewSymbols(
	Symbol[Prot]{"PROT_READ", PROT_READ}, Symbol[Prot]{"PROT_WRITE", PROT_WRITE},
	Symbol[Prot]{"PROT_EXEC", PROT_EXEC},
)

// String renders the protection as strace prints it: "PROT_READ|PROT_WRITE",
// "PROT_NONE" for none.
func (p Prot) String() string {
	if p == PROT_NONE {
		return "PROT_NONE"
	}
	return unionString(p, ProtNames)
}
