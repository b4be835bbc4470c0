package native

const intRegs = 6
