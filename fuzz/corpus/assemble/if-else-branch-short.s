ISETP.GE.AND P0, PT, R0, 16, PT   // lanes 16..31 take the else side
@P0 BRA else
FADD R1, R1, 1.0                  // then: lanes 0..15
BRA join
else:
FADD R1, R1, 2.0                  // else: lanes 16..31
join:
EXIT
