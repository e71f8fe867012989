// Per state: adult (18+) population in thousands from the 2020 Census (P.L. 94-171 redistricting
// data, table P3), the state's FIPS code, and real telephone area codes serving it.
export interface StateFacts {
  adults: number;
  fips: string;
  areaCodes: readonly number[];
}

export const STATE_FACTS: Readonly<Record<string, StateFacts>> = {
  AL: { adults: 3917, fips: '01', areaCodes: [205, 251, 256, 334, 938] },
  AK: { adults: 554, fips: '02', areaCodes: [907] },
  AZ: { adults: 5549, fips: '04', areaCodes: [480, 520, 602, 623, 928] },
  AR: { adults: 2313, fips: '05', areaCodes: [479, 501, 870] },
  CA: { adults: 30523, fips: '06', areaCodes: [209, 213, 310, 323, 408, 415, 510, 530, 559, 562, 619, 626, 650, 661, 707, 714, 760, 805, 818, 831, 858, 909, 916, 925, 949, 951] },
  CO: { adults: 4506, fips: '08', areaCodes: [303, 719, 720, 970] },
  CT: { adults: 2881, fips: '09', areaCodes: [203, 475, 860, 959] },
  DE: { adults: 779, fips: '10', areaCodes: [302] },
  DC: { adults: 577, fips: '11', areaCodes: [202] },
  FL: { adults: 17352, fips: '12', areaCodes: [239, 305, 321, 352, 386, 407, 561, 727, 772, 786, 813, 850, 863, 904, 941, 954] },
  GA: { adults: 8220, fips: '13', areaCodes: [229, 404, 470, 478, 678, 706, 762, 770, 912] },
  HI: { adults: 1132, fips: '15', areaCodes: [808] },
  ID: { adults: 1404, fips: '16', areaCodes: [208, 986] },
  IL: { adults: 9974, fips: '17', areaCodes: [217, 224, 309, 312, 331, 618, 630, 708, 773, 779, 815, 847, 872] },
  IN: { adults: 5182, fips: '18', areaCodes: [219, 260, 317, 463, 574, 765, 812, 930] },
  IA: { adults: 2418, fips: '19', areaCodes: [319, 515, 563, 641, 712] },
  KS: { adults: 2199, fips: '20', areaCodes: [316, 620, 785, 913] },
  KY: { adults: 3469, fips: '21', areaCodes: [270, 364, 502, 606, 859] },
  LA: { adults: 3570, fips: '22', areaCodes: [225, 318, 337, 504, 985] },
  ME: { adults: 1116, fips: '23', areaCodes: [207] },
  MD: { adults: 4743, fips: '24', areaCodes: [240, 301, 410, 443, 667] },
  MA: { adults: 5603, fips: '25', areaCodes: [339, 351, 413, 508, 617, 774, 781, 857, 978] },
  MI: { adults: 7874, fips: '26', areaCodes: [231, 248, 269, 313, 517, 586, 616, 734, 810, 906, 947, 989] },
  MN: { adults: 4382, fips: '27', areaCodes: [218, 320, 507, 612, 651, 763, 952] },
  MS: { adults: 2277, fips: '28', areaCodes: [228, 601, 662, 769] },
  MO: { adults: 4750, fips: '29', areaCodes: [314, 417, 573, 636, 660, 816] },
  MT: { adults: 864, fips: '30', areaCodes: [406] },
  NE: { adults: 1474, fips: '31', areaCodes: [308, 402, 531] },
  NV: { adults: 2407, fips: '32', areaCodes: [702, 725, 775] },
  NH: { adults: 1114, fips: '33', areaCodes: [603] },
  NJ: { adults: 7226, fips: '34', areaCodes: [201, 551, 609, 640, 732, 848, 856, 862, 908, 973] },
  NM: { adults: 1637, fips: '35', areaCodes: [505, 575] },
  NY: { adults: 15585, fips: '36', areaCodes: [212, 315, 332, 347, 516, 518, 585, 607, 631, 646, 680, 716, 718, 845, 914, 917, 929, 934] },
  NC: { adults: 8294, fips: '37', areaCodes: [252, 336, 704, 743, 828, 910, 919, 980, 984] },
  ND: { adults: 592, fips: '38', areaCodes: [701] },
  OH: { adults: 9079, fips: '39', areaCodes: [216, 220, 234, 330, 380, 419, 440, 513, 567, 614, 740, 937] },
  OK: { adults: 3025, fips: '40', areaCodes: [405, 539, 580, 918] },
  OR: { adults: 3371, fips: '41', areaCodes: [458, 503, 541, 971] },
  PA: { adults: 10244, fips: '42', areaCodes: [215, 223, 267, 272, 412, 445, 484, 570, 610, 717, 724, 814, 878] },
  RI: { adults: 878, fips: '44', areaCodes: [401] },
  SC: { adults: 4047, fips: '45', areaCodes: [803, 839, 843, 854, 864] },
  SD: { adults: 673, fips: '46', areaCodes: [605] },
  TN: { adults: 5349, fips: '47', areaCodes: [423, 615, 629, 731, 865, 901, 931] },
  TX: { adults: 21866, fips: '48', areaCodes: [210, 214, 254, 281, 325, 346, 361, 409, 430, 432, 469, 512, 682, 713, 726, 737, 806, 817, 830, 832, 903, 915, 936, 940, 956, 972, 979] },
  UT: { adults: 2342, fips: '49', areaCodes: [385, 435, 801] },
  VT: { adults: 514, fips: '50', areaCodes: [802] },
  VA: { adults: 6674, fips: '51', areaCodes: [276, 434, 540, 571, 703, 757, 804] },
  WA: { adults: 5951, fips: '53', areaCodes: [206, 253, 360, 425, 509, 564] },
  WV: { adults: 1435, fips: '54', areaCodes: [304, 681] },
  WI: { adults: 4555, fips: '55', areaCodes: [262, 414, 534, 608, 715, 920] },
  WY: { adults: 443, fips: '56', areaCodes: [307] },
};

/**
 * How many of `rows` people live in each state: the states' adult shares, apportioned by largest
 * remainder so the counts add up to `rows` exactly and never depend on floating-point luck.
 */
export function apportion(rows: number): Array<[string, number]> {
  const codes = Object.keys(STATE_FACTS).sort();
  const total = codes.reduce((sum, c) => sum + STATE_FACTS[c]!.adults, 0);
  const quotas = codes.map((c) => (rows * STATE_FACTS[c]!.adults) / total);
  const counts = quotas.map(Math.floor);
  let left = rows - counts.reduce((a, b) => a + b, 0);
  const order = quotas.map((q, i) => [q - Math.floor(q), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0; left > 0; k++, left--) counts[order[k]![1]]!++;
  return codes.map((c, i) => [c, counts[i]!]);
}
