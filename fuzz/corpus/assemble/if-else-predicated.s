ISETP.LT.AND P0, PT, R0, 16, PT   // compare: all 32 lanes on
@P0  FADD R1, R1, 1.0             // then: lanes 0..15 on
@!P0 FADD R1, R1, 2.0             // else: lanes 16..31 on
EXIT                              // join: all 32 on
