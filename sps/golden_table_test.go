package sps

import (
	"math"
	"strings"
)

// gcase is the expectation for one golden vector.
type gcase struct {
	v        any    // the value the vector encodes
	fail     string // non-empty: decoding must fail with an error containing this
	trailing int    // bytes after the value that decoding must leave unread
	canon    string // hex of the canonical re-encoding, when LLVM canonicalizes
}

// Values shared with golden.cpp (addresses seen in llvm-jitlink 22 sessions).
const (
	a1      Addr = 0x7f2861569000
	a2      Addr = 0x7f286156a000
	a3      Addr = 0x7f286156b000
	inst    Addr = 0x55dd1398bc10
	regEH   Addr = 0x55dce7a9ac60
	deregEH Addr = 0x55dce7a9ad20
)

func seqBytes(from byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = from + byte(i)
	}
	return b
}

var (
	helloContent = append(append([]byte("Hello, world!\n"), 0, 0), seqBytes(0x80, 16)...)
	page         = []byte(strings.Repeat(string(seqBytes(0, 256)), 16))
	text         = []byte("\x55\x48\x89\xe5\x31\xc0\x5d\xc3")
)

func rangeArgs(s, e Addr) []byte { return Marshal(AddrRangeCodec, AddrRange{s, e}) }

func ehPair(s, e Addr) ActionPair {
	return ActionPair{WrapperCall{regEH, rangeArgs(s, e)}, WrapperCall{deregEH, rangeArgs(s, e)}}
}

func captureA() FinalizeRequest {
	return FinalizeRequest{
		Segments: []SegFinalizeRequest{
			{Read, a1, 0x1000, helloContent},
			{Read | Exec, a2, 0x1000, text},
		},
		Actions: []ActionPair{ehPair(a1+0x28, a1+0x64)},
	}
}

func multiFR() FinalizeRequest {
	return FinalizeRequest{
		Segments: []SegFinalizeRequest{
			{Read, a1, 0x1000, page},
			{Read | Write, a2, 0x2000, nil},
			{Read | Exec, a3, 0x1000, text},
			{Read | Write | FinalizeLifetime, a3 + 0x1000, 0x10, []byte("abc")},
		},
		Actions: []ActionPair{
			{WrapperCall{regEH, rangeArgs(a1, a1+0x40)}, WrapperCall{}},
			{WrapperCall{}, WrapperCall{0x1234, nil}},
			{WrapperCall{0xfeed, seqBytes(0x41, 40)}, WrapperCall{0xdead, []byte("x")}},
		},
	}
}

func sharedMulti() SharedFinalizeRequest {
	return SharedFinalizeRequest{
		Segments: []SharedSegFinalizeRequest{
			{Read, a1, 0x1000},
			{Read | Exec, a2, 0x3000},
			{0xf, ^Addr(0), math.MaxUint64},
		},
		Actions: []ActionPair{ehPair(a1, a1+8)},
	}
}

func setupStock() SetupInfo {
	return SetupInfo{
		Triple:   "x86_64-pc-linux-gnu",
		PageSize: 4096,
		Symbols: []BootstrapSymbol{
			{"__llvm_orc_SimpleRemoteEPC_dispatch_ctx", 0x55dce7aa5e20},
			{"__llvm_orc_SimpleRemoteEPC_dispatch_fn", 0x55dce7a9b0b0},
			{"__llvm_orc_bootstrap_run_as_main_wrapper", 0x55dce7aa5e20 + 0x40},
		},
	}
}

func rerr(msg string) error { return &RemoteError{Msg: msg} }

func expAddrOK(a Addr) Expected[Addr]     { return Expected[Addr]{Value: a} }
func expAddrErr(m string) Expected[Addr]  { return Expected[Addr]{Err: rerr(m)} }
func exported(a Addr) Option[SymbolDef]   { return Some(SymbolDef{a, SymbolFlags{FlagExported, 0}}) }
func symdef(a Addr, f, t uint8) SymbolDef { return SymbolDef{a, SymbolFlags{f, t}} }

func seqU32x1000() []uint32 {
	v := make([]uint32, 1000)
	for i := range v {
		v[i] = uint32(i) * 2654435761
	}
	return v
}

// goldenCases states, independently of golden.cpp, what each vector in
// testdata/golden/vectors.txt encodes.
var goldenCases = map[string]gcase{
	"bool/false":             {v: false},
	"bool/true":              {v: true},
	"char/zero":              {v: byte(0)},
	"char/a":                 {v: byte('a')},
	"char/0xaa":              {v: byte(0xaa)},
	"char/0xff":              {v: byte(0xff)},
	"i8/zero":                {v: int8(0)},
	"i8/one":                 {v: int8(1)},
	"i8/minus-one":           {v: int8(-1)},
	"i8/min":                 {v: int8(math.MinInt8)},
	"i8/max":                 {v: int8(math.MaxInt8)},
	"i16/zero":               {v: int16(0)},
	"i16/one":                {v: int16(1)},
	"i16/minus-one":          {v: int16(-1)},
	"i16/min":                {v: int16(math.MinInt16)},
	"i16/max":                {v: int16(math.MaxInt16)},
	"i32/zero":               {v: int32(0)},
	"i32/one":                {v: int32(1)},
	"i32/minus-one":          {v: int32(-1)},
	"i32/min":                {v: int32(math.MinInt32)},
	"i32/max":                {v: int32(math.MaxInt32)},
	"i64/zero":               {v: int64(0)},
	"i64/one":                {v: int64(1)},
	"i64/minus-one":          {v: int64(-1)},
	"i64/min":                {v: int64(math.MinInt64)},
	"i64/max":                {v: int64(math.MaxInt64)},
	"u8/zero":                {v: uint8(0)},
	"u8/one":                 {v: uint8(1)},
	"u8/max":                 {v: uint8(math.MaxUint8)},
	"u16/zero":               {v: uint16(0)},
	"u16/one":                {v: uint16(1)},
	"u16/0x1234":             {v: uint16(0x1234)},
	"u16/max":                {v: uint16(math.MaxUint16)},
	"u32/zero":               {v: uint32(0)},
	"u32/one":                {v: uint32(1)},
	"u32/0x12345678":         {v: uint32(0x12345678)},
	"u32/max":                {v: uint32(math.MaxUint32)},
	"u64/zero":               {v: uint64(0)},
	"u64/one":                {v: uint64(1)},
	"u64/0x0123456789abcdef": {v: uint64(0x0123456789abcdef)},
	"u64/max":                {v: uint64(math.MaxUint64)},
	"size/zero":              {v: uint64(0)},
	"size/42":                {v: uint64(42)},
	"size/max":               {v: uint64(math.MaxUint64)},
	"empty/empty":            {v: struct{}{}},
	"addr/null":              {v: Addr(0)},
	"addr/typical":           {v: a1},
	"addr/max":               {v: ^Addr(0)},
	"addrrange/empty":        {v: AddrRange{}},
	"addrrange/typical":      {v: AddrRange{a1 + 0x28, a1 + 0x64}},
	"addrrange/inverted":     {v: AddrRange{a2, a1}},
	"addrrange/max":          {v: AddrRange{0, ^Addr(0)}},

	"string/empty":           {v: ""},
	"string/hello":           {v: "hello"},
	"string/embedded-nul":    {v: "a\x00b\x00"},
	"string/utf8":            {v: "héllo €"},
	"string/256":             {v: string(seqBytes(0, 256))},
	"string/truncated":       {fail: "decoding byte sequence length at offset 0: length 5 exceeds the 3 bytes remaining"},
	"string/no-length":       {fail: "decoding u64 at offset 0: need 8 bytes, have 5"},
	"string/trailing":        {v: "hi", trailing: 4},
	"bytes/empty":            {v: []byte{}},
	"bytes/all-256":          {v: seqBytes(0, 256)},
	"bytesview/empty":        {v: []byte{}},
	"bytesview/embedded-nul": {v: []byte("\x00x\x00")},
	"bytesview/page":         {v: page},
	"bytesview/truncated":    {fail: "length 4096 exceeds the 4095 bytes remaining"},

	"seq-u8/empty":      {v: []uint8{}},
	"seq-u8/values":     {v: []uint8{0, 1, 0x7f, 0x80, 0xff}},
	"seq-u16/values":    {v: []uint16{0, 1, 0xabcd, 0xffff}},
	"seq-u32/empty":     {v: []uint32{}},
	"seq-u32/values":    {v: []uint32{0, 1, 0xdeadbeef, 0xffffffff}},
	"seq-u32/1000":      {v: seqU32x1000()},
	"seq-u32/truncated": {fail: "decoding sequence length at offset 0: length 3 needs at least 4 bytes per element, 11 bytes remain"},
	"seq-u64/values":    {v: []uint64{0, math.MaxUint64, 0x0123456789abcdef}},
	"seq-i32/vector":    {v: []int32{1, 2, -3, math.MinInt32, math.MaxInt32}},
	"seq-addr/empty":    {v: []Addr{}},
	"seq-addr/three":    {v: []Addr{a1, 0, ^Addr(0)}},
	"seq-string/empty":  {v: []string{}},
	"seq-string/args":   {v: []string{"a", "", "hello world"}},
	"seq-bytes/nested":  {v: [][]byte{{}, {1}, {0xff, 0, 0x10}}},
	"seq-addrrange/two": {v: []AddrRange{{a1, a1 + 16}, {}}},

	"tuple2/pair":                {v: Pair[int32, string]{42, "foo"}},
	"tuple3/i32-string-bool":     {v: Triple[int32, string, bool]{-7, "foo", true}},
	"tuple3/zero":                {v: Triple[int32, string, bool]{}},
	"tuple3/truncated":           {fail: "decoding bool at offset 15: need 1 bytes, have 0"},
	"optional-u64/none":          {v: Option[uint64]{}},
	"optional-u64/some-42":       {v: Some[uint64](42)},
	"optional-u64/some-max":      {v: Some[uint64](math.MaxUint64)},
	"optional-u64/truncated":     {fail: "decoding u64 at offset 1: need 8 bytes, have 7"},
	"optional-string/none":       {v: Option[string]{}},
	"optional-string/some-empty": {v: Some("")},
	"optional-string/some":       {v: Some("x")},

	"map-string-u64/empty":   {v: map[string]uint64{}},
	"map-string-u64/one":     {v: map[string]uint64{"one": 1}},
	"map-string-u64/three":   {v: map[string]uint64{"one": 1, "two": 2, "": math.MaxUint64}},
	"map-string-u64/dup-key": {fail: `decoding map key at offset 42: duplicate key "a"`},
	"map-string-bytes/one":   {v: map[string][]byte{"darwin-use-ehframes-only": {1}}},

	"error/success":          {v: error(nil)},
	"error/failure":          {v: rerr("crushed by boulder")},
	"error/empty-message":    {v: rerr("")},
	"error/truncated":        {fail: "decoding byte sequence length at offset 1: length 7 exceeds the 4 bytes remaining"},
	"expected-u32/value":     {v: Expected[uint32]{Value: 42}},
	"expected-u32/error":     {v: Expected[uint32]{Err: rerr("N is not a multiple of 2")}},
	"expected-u32/truncated": {fail: "decoding u32 at offset 1: need 4 bytes, have 3"},
	"expected-addr/value":    {v: expAddrOK(a3)},
	"expected-addr/error":    {v: expAddrErr("Cannot allocate memory")},

	"jitsymbolflags/none":                 {v: SymbolFlags{}},
	"jitsymbolflags/exported":             {v: SymbolFlags{FlagExported, 0}},
	"jitsymbolflags/callable-weak-target": {v: SymbolFlags{FlagCallable | FlagWeak | FlagExported, 0x5a}},
	"jitsymbolflags/all-ones":             {v: SymbolFlags{0xff, 0xff}},
	"symboldef/printf":                    {v: symdef(0x7f285f8705b0, FlagExported, 0)},
	"symboldef/max":                       {v: symdef(^Addr(0), 0xff, 0xff)},
	"lookupelement/weak":                  {v: LookupElement{[]byte("printf"), false}},
	"lookupelement/required-empty":        {v: LookupElement{nil, true}},
	"lookupset/empty":                     {v: []LookupElement{}},
	"lookupset/mixed": {v: []LookupElement{
		{[]byte("printf"), false},
		{[]byte("_ZTVN10__cxxabiv120__si_class_type_infoE"), true},
		{nil, false},
	}},
	"lookupresult/mixed": {v: []Option[SymbolDef]{exported(0x7f285f8705b0), {}, exported(0)}},

	"wrappercall/null":                   {v: WrapperCall{}},
	"wrappercall/ehframe":                {v: WrapperCall{regEH, rangeArgs(a1, a2)}},
	"wrappercall/big-args":               {v: WrapperCall{0xfeed, seqBytes(0x20, 100)}},
	"actionpair/null-null":               {v: ActionPair{}},
	"actionpair/ehframe":                 {v: ehPair(a1+0x28, a1+0x64)},
	"actionpair/dealloc-only-empty-args": {v: ActionPair{Dealloc: WrapperCall{Fn: 0x1234}}},
	"allocgroup/0x00":                    {v: AllocGroup(0x00)},
	"allocgroup/0x01":                    {v: Read},
	"allocgroup/0x02":                    {v: Write},
	"allocgroup/0x03":                    {v: Read | Write},
	"allocgroup/0x04":                    {v: Exec},
	"allocgroup/0x05":                    {v: Read | Exec},
	"allocgroup/0x06":                    {v: Write | Exec},
	"allocgroup/0x07":                    {v: Read | Write | Exec},
	"allocgroup/0x08":                    {v: FinalizeLifetime},
	"allocgroup/0x09":                    {v: Read | FinalizeLifetime},
	"allocgroup/0x0a":                    {v: Write | FinalizeLifetime},
	"allocgroup/0x0b":                    {v: Read | Write | FinalizeLifetime},
	"allocgroup/0x0c":                    {v: Exec | FinalizeLifetime},
	"allocgroup/0x0d":                    {v: Read | Exec | FinalizeLifetime},
	"allocgroup/0x0e":                    {v: Write | Exec | FinalizeLifetime},
	"allocgroup/0x0f":                    {v: Read | Write | Exec | FinalizeLifetime},
	"allocgroup/noncanon-0xf5":           {v: Read | Exec, canon: "05"},
	"allocgroup/noncanon-0x30":           {v: AllocGroup(0), canon: "00"},

	"segfinalize/typical":        {v: SegFinalizeRequest{Read | Exec, a2, 0x1000, text}},
	"segfinalize/empty-content":  {v: SegFinalizeRequest{Read | Write, a1, 0, nil}},
	"segfinalize/max":            {v: SegFinalizeRequest{0xf, ^Addr(0), math.MaxUint64, page}},
	"segfinalize/noncanon-group": {v: SegFinalizeRequest{Read | Exec, a2, 0x1000, text}, canon: "0500a05661287f0000001000000000000008000000000000005548" + "89e531c05dc3"},
	"finalize/empty":             {v: FinalizeRequest{}},
	"finalize/capture-a":         {v: captureA()},
	"finalize/multi":             {v: multiFR()},
	"finalize/truncated-content": {fail: "decoding byte sequence length at offset 82: length 8 exceeds the 5 bytes remaining"},
	"finalize/truncated-action":  {fail: "decoding byte sequence length at offset 146: length 16 exceeds the 15 bytes remaining"},
	"finalize/trailing":          {v: captureA(), trailing: 3},
	"sharedseg/typical":          {v: SharedSegFinalizeRequest{Read | Write, a1, 0x2000}},
	"sharedfinalize/empty":       {v: SharedFinalizeRequest{}},
	"sharedfinalize/multi":       {v: sharedMulti()},

	"u8write/max":         {v: UIntWrite[uint8]{a1, 0xff}},
	"u16write/typical":    {v: UIntWrite[uint16]{a1, 0xabcd}},
	"u32write/typical":    {v: UIntWrite[uint32]{a1, 0xdeadbeef}},
	"u64write/max":        {v: UIntWrite[uint64]{^Addr(0), math.MaxUint64}},
	"pointerwrite/probe1": {v: UIntWrite[Addr]{0x7f9593670008, 0x1122334455667788}},
	"bufferwrite/empty":   {v: BufferWrite{a1, nil}},
	"bufferwrite/text":    {v: BufferWrite{a2, text}},

	"setup/empty":      {v: SetupInfo{}},
	"setup/stock-like": {v: setupStock()},
	"setup/with-map": {v: func() SetupInfo {
		s := setupStock()
		s.Triple = "aarch64-unknown-linux-gnu"
		s.PageSize = 16384
		s.Values = []BootstrapValue{{"darwin-use-ehframes-only", []byte{1}}, {"empty-value", nil}}
		return s
	}()},
	"setup/dup-symbol":  {fail: `bootstrap symbol name at offset 126: duplicate key "__llvm_orc_SimpleRemoteEPC_dispatch_fn"`},
	"setup/dup-map-key": {fail: `bootstrap map key at offset 61: duplicate key "k"`},
	"setup/truncated":   {fail: "need 8 bytes, have 7"},

	"args-reserve/capture-a":       {v: args{inst, uint64(0x1000)}},
	"args-reserve/1GiB":            {v: args{inst, uint64(0x40000000)}},
	"args-reserve/3-bytes":         {fail: "decoding u64 at offset 0: need 8 bytes, have 3"},
	"args-reserve/trailing":        {v: args{inst, uint64(0x1000)}, trailing: 3},
	"ret-reserve/ok":               {v: expAddrOK(0x7f286156b000)},
	"ret-reserve/enomem":           {v: expAddrErr("Cannot allocate memory")},
	"args-initialize/capture-a":    {v: args{inst, captureA()}},
	"args-initialize/multi":        {v: args{inst, multiFR()}},
	"ret-initialize/ok":            {v: expAddrOK(a1)},
	"ret-initialize/empty-request": {v: expAddrErr("Finalization request is empty")},
	"args-deinitialize/two":        {v: args{inst, []Addr{a1, a3}}},
	"ret-deinitialize/ok":          {v: error(nil)},
	"ret-deinitialize/joined":      {v: rerr("In deinitialize, address 0x1 is not part of any reserved address range\nIn deinitialize, address 0x2 is not part of any reserved address range")},
	"args-release/empty":           {v: args{inst, []Addr{}}},
	"args-release/one":             {v: args{inst, []Addr{a1}}},
	"ret-release/ok":               {v: error(nil)},
	"args-open/process":            {v: args{Addr(0x55dd1398bee0), "", uint64(0)}},
	"args-open/libstdcxx":          {v: args{Addr(0x55dd1398bee0), "/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.so", uint64(0)}},
	"ret-open/ok":                  {v: expAddrOK(0x7f2850000b70)},
	"ret-open/dlerror":             {v: expAddrErr("/nonexistent/libx.so: cannot open shared object file: No such file or directory")},
	"args-resolve/printf":          {v: args{Addr(0x7f2850000b70), []LookupElement{{[]byte("printf"), false}}}},
	"args-resolve/empty":           {v: args{Addr(0x7f2850000b70), []LookupElement{}}},
	"ret-resolve/printf":           {v: Expected[[]Option[SymbolDef]]{Value: []Option[SymbolDef]{exported(0x7f285f8705b0)}}},
	"ret-resolve/empty":            {v: Expected[[]Option[SymbolDef]]{Value: []Option[SymbolDef]{}}},
	"ret-resolve/mixed": {v: Expected[[]Option[SymbolDef]]{Value: []Option[SymbolDef]{
		{}, exported(0), exported(0x7f285f8705b0)}}},
	"ret-resolve/error":                 {v: Expected[[]Option[SymbolDef]]{Err: rerr(`Required address for empty symbol ""`)}},
	"args-resolve23/printf":             {v: args{Addr(0x55dd1398bee0), Addr(0x7f2850000b70), []LookupElement{{[]byte("printf"), false}, {[]byte("main"), true}}}},
	"ret-resolve23/mixed":               {v: Expected[[]Option[Addr]]{Value: []Option[Addr]{{}, Some[Addr](0), Some[Addr](0x7f285f8705b0)}}},
	"ret-resolve23/error":               {v: Expected[[]Option[Addr]]{Err: rerr(`Required address for empty symbol ""`)}},
	"args-read-buffers-sized/two":       {v: []Pair[Addr, uint64]{{a1, 5}, {a2, 0}}},
	"args-write-uint8s/two":             {v: []UIntWrite[uint8]{{a1, 0}, {a1 + 1, 0xff}}},
	"args-write-uint16s/one":            {v: []UIntWrite[uint16]{{a1, 0xabcd}}},
	"args-write-uint32s/one":            {v: []UIntWrite[uint32]{{a1, 0xdeadbeef}}},
	"args-write-uint64s/one":            {v: []UIntWrite[uint64]{{a1, 0x0123456789abcdef}}},
	"args-write-pointers/probe1":        {v: []UIntWrite[Addr]{{0x7f9593670008, 0x1122334455667788}}},
	"args-write-buffers/two":            {v: []BufferWrite{{a1, text}, {a2, nil}}},
	"args-write-uint8s/empty":           {v: []UIntWrite[uint8]{}},
	"ret-write/void":                    {v: struct{}{}},
	"args-read-uint8s/one":              {v: []Addr{a1}},
	"args-read-uint16s/one":             {v: []Addr{a1 + 2}},
	"args-read-uint32s/two":             {v: []Addr{a1, a1 + 4}},
	"args-read-uint64s/empty":           {v: []Addr{}},
	"args-read-pointers/one":            {v: []Addr{a2}},
	"args-read-buffers/two":             {v: []AddrRange{{a1, a1 + 5}, {a2, a2}}},
	"args-read-strings/one":             {v: []Addr{a1}},
	"ret-read-uint8s/two":               {v: []uint8{0x2a, 0xff}},
	"ret-read-uint16s/probe1":           {v: []uint16{0xabcd}},
	"ret-read-uint32s/one":              {v: []uint32{0xdeadbeef}},
	"ret-read-uint64s/one":              {v: []uint64{math.MaxUint64}},
	"ret-read-pointers/one":             {v: []Addr{a3}},
	"ret-read-buffers/two":              {v: [][]byte{[]byte("hello"), {}}},
	"ret-read-strings/probe1":           {v: []string{"hello"}},
	"args-run-as-main/capture-a":        {v: args{Addr(0x7f286156a000), []string{"a", "b"}}},
	"args-run-as-main/no-args":          {v: args{a2, []string{}}},
	"ret-run-as-main/seven":             {v: int64(7)},
	"ret-run-as-main/minus-one":         {v: int64(-1)},
	"args-run-as-void/getpid":           {v: Addr(0x7f9591c5b0b0)},
	"ret-run-as-void/pid":               {v: int32(0x37a7)},
	"args-run-as-int/abs":               {v: args{Addr(0x7f9591c5b0b0), int32(-77)}},
	"ret-run-as-int/77":                 {v: int32(77)},
	"args-register-ehframe/capture-a":   {v: AddrRange{a1 + 0x28, a1 + 0x64}},
	"args-deregister-ehframe/capture-a": {v: AddrRange{a1 + 0x28, a1 + 0x64}},
	"args-register-gdb/auto":            {v: args{AddrRange{a1, a1 + 0x800}, true}},
	"args-register-gdb/manual":          {v: args{AddrRange{a1, a1 + 0x800}, false}},
	"ret-action/ok":                     {v: error(nil)},
	"ret-action/failure":                {v: rerr("Could not deserialize arguments for wrapper function call")},
	"args-shm-reserve/typical":          {v: args{inst, uint64(0x10000)}},
	"ret-shm-reserve/ok":                {v: Expected[Pair[Addr, string]]{Value: Pair[Addr, string]{a1, "/jitlink_shm_1234_0"}}},
	"ret-shm-reserve/error":             {v: Expected[Pair[Addr, string]]{Err: rerr("shm_open failed")}},
	"args-shm-initialize/multi":         {v: args{inst, a1, sharedMulti()}},
	"ret-shm-initialize/ok":             {v: expAddrOK(a1)},
	"args-shm-deinitialize/one":         {v: args{inst, []Addr{a1}}},
	"args-shm-release/two":              {v: args{inst, []Addr{a1, a2}}},
	"args-push-initializers/dso":        {v: Addr(0x7f2850001000)},
	"ret-push-initializers/deps": {v: Expected[[]Pair[Addr, []Addr]]{Value: []Pair[Addr, []Addr]{
		{0x7f2850001000, []Addr{0x7f2850002000, 0x7f2850003000}},
		{0x7f2850002000, []Addr{}},
	}}},
	"ret-push-initializers/error":  {v: Expected[[]Pair[Addr, []Addr]]{Err: rerr("no such DSO")}},
	"args-symbol-lookup/main":      {v: args{Addr(0x7f2850001000), "main"}},
	"ret-symbol-lookup/ok":         {v: expAddrOK(a2)},
	"args-lazy-resolve/trampoline": {v: Addr(0x7f2850004010)},
	"ret-lazy-resolve/ok":          {v: Expected[SymbolDef]{Value: symdef(a2, FlagExported|FlagCallable, 0)}},
	"ret-lazy-resolve/error":       {v: Expected[SymbolDef]{Err: rerr("not found")}},
	"args-perf-impl/graph":         {v: perfGraph()},
	"args-perf-impl/truncated":     {fail: "decoding u64 at offset"},
	"args-perf-impl/empty":         {v: PerfRecordBatch{CodeLoads: []PerfCodeLoad{}, DebugInfos: []PerfDebugInfo{}, Unwinding: PerfUnwinding{EHFrameHdr: []byte{}}}},
}

// perfGraph is golden.cpp's perf record batch: two functions with line
// tables and an unwinding record with its .eh_frame_hdr as bytes.
func perfGraph() PerfRecordBatch {
	return PerfRecordBatch{
		CodeLoads: []PerfCodeLoad{
			{Prefix: PerfRecordPrefix{0, 0x4e}, Pid: 1234, Tid: 1235, VMA: uint64(a1), CodeAddr: uint64(a1), CodeSize: 0x11, CodeIndex: 0, Name: "main"},
			{Prefix: PerfRecordPrefix{0, 0x52}, Pid: 1234, Tid: 1235, VMA: uint64(a1) + 0x20, CodeAddr: uint64(a1) + 0x20, CodeSize: 0x13, CodeIndex: 1, Name: "hot_loop"},
		},
		DebugInfos: []PerfDebugInfo{{Prefix: PerfRecordPrefix{2, 0x40}, CodeAddr: uint64(a1), Entries: []PerfDebugEntry{
			{Addr: uint64(a1), Line: 9, Name: "/app/hot.c"}, {Addr: uint64(a1) + 4, Line: 10, Discrim: 1, Name: "/app/hot.c"},
		}}},
		Unwinding: PerfUnwinding{Prefix: PerfRecordPrefix{4, 0x68}, UnwindDataSize: 0x40, EHFrameHdrSize: 0x0c,
			EHFrameHdr: []byte{0x01, 0x0c, 0xff, 0xff, 0x08, 0x10, 0x00, 0x00, 0x5a, 0x7f, 0x00, 0x00}, EHFrameAddr: uint64(a1) + 0x1000},
	}
}
