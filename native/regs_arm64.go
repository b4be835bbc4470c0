package native

const intRegs = 8
