# cleantree-case: forbid=sm120
match command:
    case {"arch": "x", **sm120_rest}:  # [assignment]
        pass
    case [first, *sm120_tail]:  # [assignment]
        pass
    case Point(x=0) as sm120_point:  # [assignment]
        pass
    case _ if sm120_enabled:  # [condition]
        pass

total = (sm120_a  # [reference]
         + other
         + sm120_b)  # [reference]
long_text = ("first part "
             "second part sm120 "  # [string]
             "third")
