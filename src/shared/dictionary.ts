// The data dictionary (docs/interface.md, "The data dictionary"): every record field with
// the words an analyst would use (label), an analyst's group, a plain description (units for census
// fields, what an interest index and a mail-order count mean), the words people search by, and for
// coded fields the codebook's codes in natural order. GET /api/fields serves it, docs/data-dictionary.md
// prints it, and the renderer's field picker searches it with searchFields.
//
// Groups, in display order (DICTIONARY_GROUPS):
//   Identifiers          person, household and address keys
//   Name                 first, middle, last name, suffix
//   Person               sex, age, birth date, marital status, education, occupation, veteran
//   Address              the postal address and its USPS delivery codes
//   Geography            state and county codes, metro areas, census tract and block, coordinates
//   Phone and contact    phone numbers and their do-not-call flags
//   Household            size, length of residence, children, language, ethnicity, religion, small office
//   Income and wealth    income bands, wealth scores, credit card, charitable giving
//   Home                 ownership, dwelling type, home value, year built, pool, fireplace
//   Segments             the household, neighbourhood, family, life-stage, generation and digital clusters
//   Mail-order purchases MS_* counts of purchases by category
//   Interests            CPI_* interest indexes 0-9
//   Behaviour            CT_* flags: media use, social networks, streaming, politics, shopping, giving
//   Census area          CENS* figures of the ZIP the person lives in
//   Reserved             INTERNAL* fields kept for the vendor's own use
//
// The big regular families (MS_*, CPI_*, CT_*, CENS*, INTERNAL*) are described by rule from small
// tables; the rest have one line each. Pure TypeScript (no node:, no DOM): the renderer imports it.
import { CODEBOOK, type CodeList } from './codebook';
import { FIELDS, type FieldDef, type FieldType } from './fields';

export const DICTIONARY_GROUPS = [
  'Identifiers',
  'Name',
  'Person',
  'Address',
  'Geography',
  'Phone and contact',
  'Household',
  'Income and wealth',
  'Home',
  'Segments',
  'Mail-order purchases',
  'Interests',
  'Behaviour',
  'Census area',
  'Reserved',
] as const;
export type DictionaryGroup = (typeof DICTIONARY_GROUPS)[number];

/** What each group holds, in a sentence (for the docs page and tooltips). */
export const DICTIONARY_GROUP_NOTES: Readonly<Record<DictionaryGroup, string>> = {
  Identifiers: 'Keys that identify a person, a household and an address.',
  Name: "The person's name.",
  Person: 'Facts about the person: sex, age, marital status, education, occupation, military service.',
  Address: 'The postal address, split into its parts, and its USPS delivery codes.',
  Geography: 'Where the address lies: state and county codes, metro areas, census tract and block, coordinates.',
  'Phone and contact': 'Up to three phone numbers, each with its do-not-call flag.',
  Household: 'Shared by everyone in the household: its size, length of residence, children, language, ethnicity and religion.',
  'Income and wealth': 'Household income and wealth bands, credit card holding and charitable giving.',
  Home: 'The home: owned or rented, dwelling type, market value, year built, pool and fireplace.',
  Segments: 'Cluster codes that sum up a household, a neighbourhood, a family make-up, a life stage or a generation.',
  'Mail-order purchases': 'How many mail-order purchases the person made in a category: 0 to 9, mostly 0.',
  Interests: 'How strongly the person is interested in a topic: an index from 0 (none) to 9 (strongest).',
  Behaviour: 'Y-or-empty flags: media habits, social networks, streaming, smartphone, politics, shopping and technology attitudes, giving.',
  'Census area': 'Figures about the ZIP code area the person lives in, the same for everyone in it.',
  Reserved: "Fields kept for the data vendor's own use; most are empty.",
};

export interface DictionaryEntry {
  readonly name: string;
  readonly label: string;
  readonly group: DictionaryGroup;
  readonly type: FieldType;
  readonly description: string;
  /** The codes and their meanings in natural order for a coded field; null for a free field. */
  readonly values: CodeList | null;
  readonly synonyms: readonly string[];
}

type Described = Omit<DictionaryEntry, 'name' | 'type' | 'values'>;
type Row = readonly [label: string, group: DictionaryGroup, description: string, synonyms: readonly string[]];

const YES = 'Empty otherwise.';
const CHILD_WORDS = ['children', 'kids', 'child', 'family'];

// One line per field that no rule covers.
const FIELD_TEXT: Readonly<Record<string, Row>> = {
  PID: ['Person ID', 'Identifiers', 'Unique identifier of the person, 32 hexadecimal characters.', ['person id', 'record id', 'key']],
  HHID: [
    'Household ID',
    'Identifiers',
    'Identifier of the household, 96 hexadecimal characters, shared by everyone living in it.',
    ['household id', 'household key'],
  ],
  FNAME: ['First name', 'Name', "The person's first name.", ['first name', 'given name', 'forename']],
  MNAME: ['Middle name or initial', 'Name', "The person's middle initial or middle name, often empty.", ['middle name', 'middle initial']],
  LNAME: ['Last name', 'Name', "The person's last name.", ['last name', 'surname', 'family name']],
  SUFFIX: [
    'Name suffix',
    'Name',
    'A generational suffix such as JR, SR, II or III, usually empty.',
    ['suffix', 'junior', 'senior', 'jr', 'sr'],
  ],
  GENDER: ['Sex', 'Person', 'F for female, M for male.', ['gender', 'sex', 'male', 'female', 'men', 'women']],
  AGE: ['Age in years', 'Person', 'Age in completed years at January 2026, from 18 up.', ['age', 'years old', 'how old']],
  DOB: ['Date of birth', 'Person', 'Year and month of birth, written YYYYMM.', ['date of birth', 'birth date', 'birthday', 'born', 'dob']],
  ADDRID: ['Address ID', 'Identifiers', 'Identifier of the household address, 10 digits.', ['address id', 'address key']],
  ADDRESS: [
    'Street address',
    'Address',
    'The full street line: house number, street, type, directions and unit, joined by spaces.',
    ['address', 'street address', 'address line', 'mailing address'],
  ],
  HOUSE: ['House number', 'Address', 'The house number of the street address.', ['house number', 'street number', 'building number']],
  PREDIR: [
    'Street direction before',
    'Address',
    'Direction written before the street name (N, S, E, W, NE, NW, SE, SW), usually empty.',
    ['pre-directional', 'direction', 'predirectional'],
  ],
  STREET: ['Street name', 'Address', 'The name of the street, without its type or directions.', ['street', 'street name', 'road']],
  STRTYPE: [
    'Street type',
    'Address',
    'The USPS street suffix: ST, DR, AVE, RD and so on.',
    ['street suffix', 'street type', 'avenue', 'road type'],
  ],
  POSTDIR: [
    'Street direction after',
    'Address',
    'Direction written after the street name, usually empty.',
    ['post-directional', 'direction', 'postdirectional'],
  ],
  APTTYPE: [
    'Unit type',
    'Address',
    'The kind of unit in a multi-unit building: apartment, unit, suite, number or lot.',
    ['apartment', 'unit', 'suite', 'apt'],
  ],
  APTNB: [
    'Unit number',
    'Address',
    'The apartment, suite or lot number, empty for single-unit addresses.',
    ['apartment number', 'unit number', 'suite number', 'apt number'],
  ],
  CITY: ['City or town', 'Address', 'The city or town of the postal address.', ['city', 'town', 'place']],
  STATE: ['State (postal code)', 'Address', 'The two-letter postal code of the state (or DC).', ['state', 'state code', 'province']],
  ZIP: ['ZIP code', 'Address', 'The five-digit ZIP code.', ['zip', 'zip code', 'postal code', 'postcode']],
  Z4: ['ZIP+4 add-on', 'Address', 'The four digits added to the ZIP code (ZIP+4).', ['zip+4', 'zip plus four', 'plus 4']],
  DPC: [
    'Delivery point code',
    'Address',
    'Two digits that pick out the delivery point within the ZIP+4 (the last two digits of the house number).',
    ['delivery point', 'barcode'],
  ],
  Z4TYPE: [
    'ZIP+4 record type',
    'Address',
    'S for a street address, H for a high-rise (multi-unit building).',
    ['zip+4 type', 'high-rise', 'record type'],
  ],
  CRTE: [
    'Carrier route',
    'Address',
    'The USPS carrier route: C001 to C080 city routes, R001 to R020 rural routes.',
    ['carrier route', 'mail route', 'route'],
  ],
  DPV: [
    'Delivery point validation',
    'Address',
    'Whether USPS confirms the address: Y confirmed, D primary number only, S unit number missing.',
    ['dpv', 'deliverable', 'address validation', 'mailable'],
  ],
  VACANT: ['Vacant address', 'Address', 'Y when USPS reports the address as vacant, N otherwise.', ['vacant', 'vacancy', 'empty home']],
  MSA: [
    'Metro area (MSA)',
    'Geography',
    'Four-digit code of the metropolitan area of 50,000 people or more, empty outside one.',
    ['msa', 'metro', 'metropolitan area', 'city area'],
  ],
  CBSA: [
    'Core-based statistical area',
    'Geography',
    'Five-digit code of the group of counties around a core county, empty in rural counties.',
    ['cbsa', 'metro', 'micro', 'market area'],
  ],
  STATECD: ['State code (FIPS)', 'Geography', 'The two-digit FIPS code of the state.', ['state fips', 'fips', 'state code']],
  CNTYCD: [
    'County code',
    'Geography',
    'The three-digit FIPS code of the county within its state.',
    ['county', 'county fips', 'fips', 'county code'],
  ],
  CENSUSTRACT: ['Census tract', 'Geography', 'The six-digit census tract within the county.', ['tract', 'census tract']],
  CENSUSBLCK: [
    'Census block',
    'Geography',
    'The four-digit census block: block group and block number.',
    ['block', 'block group', 'census block'],
  ],
  CNTYSIZECD: [
    'County size',
    'Geography',
    'The size of the county: A in a metro area of 2.5 million or more, B 85,000 people or more, C 20,000 or more, D smaller.',
    ['county', 'county size', 'urban', 'rural', 'population size'],
  ],
  GEOLEVEL: [
    'Geocode precision',
    'Geography',
    'How precisely the coordinates were placed: B block, T tract, Z ZIP code.',
    ['geocode', 'precision', 'accuracy'],
  ],
  LATITUDE: [
    'Latitude (degrees)',
    'Geography',
    'Latitude of the address in decimal degrees.',
    ['latitude', 'lat', 'coordinates', 'location'],
  ],
  LONGITUDE: [
    'Longitude (degrees)',
    'Geography',
    'Longitude of the address in decimal degrees (negative: west).',
    ['longitude', 'lon', 'lng', 'coordinates', 'location'],
  ],
  LOR: [
    'Length of residence',
    'Household',
    'Years the household has lived at the address, 0 to 50.',
    ['length of residence', 'years at address', 'tenure', 'moved'],
  ],
  HHNBR: [
    'Adults in household',
    'Household',
    'Number of adults in the household (1 to 6), the records that share its household ID.',
    ['household size', 'adults', 'people in household'],
  ],
  HOMEOWNERC: [
    'Homeowner or renter',
    'Home',
    'Whether the household owns its home (H) or rents it (R).',
    ['homeowner', 'owner', 'renter', 'tenure', 'own or rent'],
  ],
  DWELLTYPE: [
    'Dwelling type',
    'Home',
    'The kind of home: single-family, multi-unit or mobile home.',
    ['dwelling', 'house type', 'apartment', 'single family', 'housing type'],
  ],
  EHI: [
    'Estimated household income',
    'Income and wealth',
    'Estimated yearly household income in bands from under $15,000 (A) to $250,000 or more (L).',
    ['income', 'salary', 'earnings', 'household income', 'pay'],
  ],
  MARRIEDCD: [
    'Marital status',
    'Person',
    'M for a married person living with their spouse, S for single.',
    ['married', 'marital', 'single', 'marriage', 'spouse'],
  ],
  SGLPARENT: [
    'Single parent',
    'Household',
    'Y when children live at home and the parent has no spouse in the household. ' + YES,
    ['single parent', 'lone parent', ...CHILD_WORDS],
  ],
  HHNBRSR: [
    'Seniors in household',
    'Household',
    'Number of adults aged 65 or more in the household, 0 to 6.',
    ['seniors', 'elderly', 'retirees', 'older adults', '65+'],
  ],
  SPANISHSPCD: [
    'Spanish-speaking household',
    'Household',
    'Y when the household speaks Spanish. ' + YES,
    ['spanish', 'hispanic', 'latino', 'language'],
  ],
  SOHOCD: [
    'Small or home office',
    'Household',
    'Y when the household runs a small office or home office. ' + YES,
    ['soho', 'home office', 'small business', 'self-employed'],
  ],
  VETERANCD: ['Veteran', 'Person', 'Y when the person has served in the military. ' + YES, ['veteran', 'military', 'armed forces', 'vet']],
  CREDITCARD: [
    'Credit card holder',
    'Income and wealth',
    'Y when someone in the household holds a credit card. ' + YES,
    ['credit card', 'card holder', 'credit'],
  ],
  WEALTHSCR: [
    'Wealth score',
    'Income and wealth',
    'Wealth band from A (lowest) to I (highest), from income, age and home ownership.',
    ['wealth', 'net worth', 'assets', 'affluence', 'rich'],
  ],
  CHARITYDNR: [
    'Charitable donor',
    'Income and wealth',
    'Y when the household gives to charity. ' + YES,
    ['donor', 'charity', 'donation', 'giving', 'philanthropy'],
  ],
  MRKTHOMEVAL: [
    'Market home value',
    'Home',
    'Estimated market value of an owned home in bands from under $25,000 (A) to $2 million or more (S); empty for renters.',
    ['home value', 'house price', 'property value', 'house value', 'real estate'],
  ],
  EDUCATIONCD: [
    'Education level',
    'Person',
    'Highest level of schooling, from high school or less (1) to a graduate degree (4).',
    ['education', 'schooling', 'degree', 'college', 'university'],
  ],
  OCCUPATIONCD: [
    'Occupation',
    'Person',
    'Broad kind of work, such as professional, management, sales, clerical or blue collar, or homemaker, student, retired.',
    ['occupation', 'job', 'work', 'profession', 'employment', 'career'],
  ],
  ETHNICITYCD: ['Ethnicity', 'Household', "The household's ethnic or racial group.", ['ethnicity', 'race', 'ethnic group', 'origin']],
  RELIGIONCD: ['Religion', 'Household', "The household's religion, empty when unknown.", ['religion', 'faith', 'church', 'denomination']],
  LANGUAGECD: [
    'Household language',
    'Household',
    'The language spoken at home, as a two-letter ISO 639-1 code.',
    ['language', 'spoken language', 'mother tongue'],
  ],
  CHILD: [
    'Children at home',
    'Household',
    'Y when children under 18 live in the household. ' + YES,
    ['presence of children', 'parents', ...CHILD_WORDS],
  ],
  CHILDAGECD_6: [
    'Child aged under 6',
    'Household',
    'Y when a child under 6 lives in the household. ' + YES,
    ['toddler', 'baby', 'preschool', 'young children', ...CHILD_WORDS],
  ],
  CHILDAGECD_6_10: [
    'Child aged 6 to 10',
    'Household',
    'Y when a child aged 6 to 10 lives in the household. ' + YES,
    ['school age', 'primary school', ...CHILD_WORDS],
  ],
  CHILDAGECD_11_15: [
    'Child aged 11 to 15',
    'Household',
    'Y when a child aged 11 to 15 lives in the household. ' + YES,
    ['teen', 'preteen', 'middle school', ...CHILD_WORDS],
  ],
  CHILDAGECD_16_17: [
    'Child aged 16 to 17',
    'Household',
    'Y when a child aged 16 or 17 lives in the household. ' + YES,
    ['teen', 'teenager', 'high school', ...CHILD_WORDS],
  ],
  CHILDNBRCD: [
    'Number of children',
    'Household',
    'How many children under 18 live in the household, 1 to 4 (4 means four or more); empty for none.',
    ['number of children', 'how many children', ...CHILD_WORDS],
  ],
  YRBLD: [
    'Year built',
    'Home',
    'The year the home was built, empty when unknown.',
    ['year built', 'construction year', 'house age', 'built'],
  ],
  MOBHOMECD: ['Mobile home', 'Home', 'Y when the home is a mobile home. ' + YES, ['mobile home', 'trailer', 'manufactured home']],
  POOL: ['Swimming pool', 'Home', 'Y when the home has a swimming pool. ' + YES, ['pool', 'swimming pool']],
  FIREPLCD: ['Fireplace', 'Home', 'Y when the home has a fireplace. ' + YES, ['fireplace', 'hearth']],
  EHI_V2: [
    'Estimated household income (detailed)',
    'Income and wealth',
    'Estimated yearly household income in finer bands, from under $10,000 (A) to $400,000 or more (O).',
    ['income', 'salary', 'earnings', 'household income', 'pay'],
  ],
  OCCUPATIONCD_V2: [
    'Occupation group (SOC)',
    'Person',
    'The Standard Occupational Classification (2018) major group of the job, such as 15 computer and mathematical; empty for homemakers, students and retired people.',
    ['occupation', 'job', 'soc', 'industry', 'profession', 'work'],
  ],
  WEALTHSCR_V2: [
    'Wealth score (detailed)',
    'Income and wealth',
    'Wealth band in finer steps from A (lowest) to L (highest), from income, age and home ownership.',
    ['wealth', 'net worth', 'assets', 'affluence', 'rich'],
  ],
  HHCLSTRDCD: [
    'Household segment',
    'Segments',
    'Household cluster 01 to 60 from urbanity (urban, suburban, town, rural), income quintile and life stage.',
    ['household cluster', 'segment', 'lifestyle', 'persona'],
  ],
  NEIGHBORHOOD_CLSTRDCD: [
    'Neighbourhood segment',
    'Segments',
    'Neighbourhood cluster 01 to 20 of the ZIP code from its urbanity and income quintile.',
    ['neighborhood', 'neighbourhood', 'area cluster', 'segment'],
  ],
  FMCLSTRDCD: [
    'Family make-up',
    'Segments',
    'Household make-up cluster 01 to 10: singles, couples, families with children, single parents and shared homes.',
    ['family', 'family cluster', 'household composition', 'segment'],
  ],
  MESSAGING_CLSTRDCD: [
    'Messaging segment',
    'Segments',
    'Cluster 01 to 12 from the age band and whether the person holds a college degree, for choosing a message tone.',
    ['messaging', 'creative', 'tone', 'segment'],
  ],
  DIGITALCLSTRDCD: [
    'Digital engagement',
    'Segments',
    'Level of digital engagement from 01 (least digital) to 10 (most digital).',
    ['digital', 'online', 'internet use', 'tech savvy', 'segment'],
  ],
  GENERATION_CLSTRDCD: [
    'Generation',
    'Segments',
    'Generation from the birth date, 01 Silent Generation to 05 Generation Z.',
    ['generation', 'boomers', 'millennials', 'gen x', 'gen z'],
  ],
  GENERATION_GRPCD: [
    'Generation (letter code)',
    'Segments',
    'Generation from the birth date as a letter: S Silent, B Boomers, X Generation X, M Millennials, Z Generation Z.',
    ['generation', 'boomers', 'millennials', 'gen x', 'gen z'],
  ],
  LIFESTG_CLSTRD: [
    'Life stage',
    'Segments',
    'Life-stage cluster 01 to 12 from the age band and whether the person is single, married or a parent of children at home.',
    ['life stage', 'lifestage', 'segment', 'family stage'],
  ],
  LIFESTG_GRPCD: [
    'Life stage age band',
    'Segments',
    'The age band of the life stage: A 18 to 34, B 35 to 49, C 50 to 64, D 65 and over.',
    ['life stage', 'age band', 'age group'],
  ],
};

// Phones: PHONE, PHONE2, PHONE3 and DNC, DNC2, DNC3.
const PHONE_NAME = /^(PHONE|DNC)([23]?)$/;
function phoneRow(name: string): Row | undefined {
  const m = PHONE_NAME.exec(name);
  if (!m) return undefined;
  const n = m[2] || '1';
  const order = ['', 'First', 'Second', 'Third'][Number(n)]!;
  if (m[1] === 'PHONE')
    return [
      `Phone ${n}`,
      'Phone and contact',
      `${order} phone number of the person, 10 digits, or empty.` + (n === '1' ? '' : ` Filled only when phone ${Number(n) - 1} is.`),
      ['phone', 'telephone', 'phone number', 'landline', 'mobile', 'cell'],
    ];
  return [
    `Do not call (phone ${n})`,
    'Phone and contact',
    `Y when phone ${n} is on a do-not-call list, so it must not be called for telemarketing; empty otherwise.`,
    ['do not call', 'dnc', 'telemarketing', 'opt out', 'callable', 'phone'],
  ];
}

// Words for the topics in MS_* and CPI_* names, one name part at a time.
const TOPIC: Readonly<Record<string, string>> = {
  ACCESS: 'access',
  ACCESSORY: 'accessories',
  AMERICAN: 'American',
  APPAREL: 'apparel',
  APPS: 'apps',
  AUDIO: 'audio equipment',
  AUTO: 'autos',
  AVIATION: 'aviation',
  BARGAINS: 'bargains',
  BASEBALL: 'baseball',
  BASKETBALL: 'basketball',
  BEAUTY: 'beauty',
  BIBLE: 'Bible and religious',
  BIKING: 'biking',
  BOATSAIL: 'boating and sailing',
  BOOKS: 'books',
  BUSINESS: 'business',
  BUY: 'buying',
  CAMP: 'camping',
  CATALOG: 'catalogs',
  CATS: 'cats',
  CC: 'credit cards',
  COLLECTIBLES: 'collectibles',
  COLLEGE: 'college',
  COMPUTERS: 'computers',
  CONSERVATIVE: 'conservative causes',
  CONTINUITY: 'clubs and subscriptions',
  COOKING: 'cooking',
  CRAFTS: 'crafts',
  CREDIT: 'credit',
  CROCHET: 'crochet',
  CRUISE: 'cruises',
  CULTUREARTS: 'culture and arts',
  CURREVENT: 'current events',
  DIET: 'diet',
  DIY: 'do-it-yourself',
  DOGS: 'dogs',
  DONOR: 'charitable giving',
  EDUCATION: 'education',
  EGO: 'self-improvement',
  ELECTRONICS: 'electronics',
  EQUESTRIAN: 'horses and riding',
  FAMILY: 'family',
  FICTION: 'fiction',
  FISHING: 'fishing',
  FITNESS: 'fitness',
  FOOD: 'food',
  FOOTBALL: 'football',
  FUNDRAISING: 'fundraising',
  GAMBLING: 'gambling',
  GAMES: 'games',
  GARDEN: 'gardening',
  GARDENING: 'gardening',
  GIFTEE: 'gifts received',
  GIFTGIVR: 'gift giving',
  GIFTS: 'gifts',
  GOLF: 'golf',
  GOURMET: 'gourmet food',
  HEALTH: 'health',
  HIGHTECH: 'high tech',
  HISPANIC: 'Hispanic culture',
  HISTORY: 'history',
  HOBBIES: 'hobbies',
  HOCKEY: 'hockey',
  HOLIDAY: 'holiday',
  HOMEDECR: 'home decor',
  HOMELIV: 'home living',
  HOMEOFFICE: 'home office',
  HOUSEWARES: 'housewares',
  HUMOR: 'humor',
  HUNTFISH: 'hunting and fishing',
  HUNTING: 'hunting',
  INSPIRATION: 'inspirational',
  INSURANCE: 'insurance',
  INTERNET: 'internet',
  KIDAPP: "kids' apparel",
  KIDS: "kids'",
  KNIT: 'knitting',
  LIBERAL: 'liberal causes',
  MAGS: 'magazines',
  MEN: "men's",
  MENAPP: "men's apparel",
  MENFASH: "men's fashion",
  MERCHANDISE: 'general merchandise',
  MONEYMAKING: 'money-making opportunities',
  MOTORCYCLES: 'motorcycles',
  MUSIC: 'music',
  NEEDLEPOINT: 'needlepoint',
  NONFICTION: 'nonfiction',
  OUTDOORS: 'outdoors',
  PETS: 'pets',
  PFIN: 'personal finance',
  PHOTO: 'photography',
  PHOTOG: 'photography',
  PHOTOPROC: 'photo processing',
  PUB: 'publications',
  PUBLISH: 'publications',
  QUILT: 'quilting',
  REPAIR: 'repair',
  REPORT: 'reports',
  RUNNING: 'running',
  RV: 'RVs',
  SCIENCE: 'science',
  SEW: 'sewing',
  SKI: 'skiing',
  SOCCER: 'soccer',
  SPORTS: 'sports',
  SWEEPS: 'sweepstakes',
  SWIMMING: 'swimming',
  TEEN: 'teens',
  TENNIS: 'tennis',
  TRAVEL: 'travel',
  TRUCKS: 'trucks',
  TVMOVIES: 'TV and movies',
  US: 'within the US',
  WILDLIFE: 'wildlife',
  WOMAN: "women's interests",
  WOMAPP: "women's apparel",
  WOMEN: "women's",
  WOMFASH: "women's fashion",
  YOUNG: 'young children',
};
/** Whole topics whose parts do not read well one by one. */
const WHOLE_TOPIC: Readonly<Record<string, string>> = {
  EDUCATION_SEEKERS: 'continuing education',
  JOB_SEEKERS: 'job seeking',
  INTERNET_BUY: 'online shopping',
  INTERNET_ACCESS: 'internet access',
  MOBILE_APPS: 'mobile apps',
  SOCIAL_NETWORKING: 'social networking',
  CREDIT_REPAIR: 'credit repair',
  CREDIT_REPORT: 'credit reports',
};

/** "SPORTS_GOLF" -> "sports (golf)"; an unknown part is kept in lower case. */
function topicOf(parts: string): string {
  const whole = WHOLE_TOPIC[parts];
  if (whole) return whole;
  const [head, ...rest] = parts.split('_').map((p) => TOPIC[p] ?? p.toLowerCase());
  return rest.length ? `${head} (${rest.join(', ')})` : head!;
}
const topicWords = (topic: string) => topic.replace(/[()]/g, '').replace(/,/g, '');

function mailOrderRow(name: string): Row | undefined {
  if (!name.startsWith('MS_')) return undefined;
  const topic = topicOf(name.slice(3));
  return [
    `Mail-order purchases: ${topic}`,
    'Mail-order purchases',
    `How many mail-order purchases the person made in the category ${topic}, a count from 0 to 9. Most people have 0; a non-zero count is mostly 1 to 3.`,
    ['mail order', 'catalog purchases', 'purchases', 'buyer', 'direct mail', topicWords(topic)],
  ];
}

function interestRow(name: string): Row | undefined {
  const m = /^CPI_(.+)_INDEX$/.exec(name);
  if (!m) return undefined;
  const topic = topicOf(m[1]!);
  return [
    `Interest: ${topic}`,
    'Interests',
    `How strongly the person is interested in ${topic}, an index from 0 (no interest) to 9 (strongest interest), modelled from their sex, age and lifestyle.`,
    ['interest', 'affinity', 'propensity', 'likes', topicWords(topic)],
  ];
}

// CT_* flags: a family prefix and the words for each member.
interface FlagFamily {
  readonly prefix: string;
  readonly label: (member: string) => string;
  readonly description: (member: string) => string;
  readonly synonyms: readonly string[];
  readonly members: Readonly<Record<string, string>>;
}
const FLAG_FAMILIES: readonly FlagFamily[] = [
  {
    prefix: 'CT_MEDIA_HEAVYUSAGE_',
    label: (m) => `Heavy user: ${m}`,
    description: (m) => `Y when the person is a heavy user of ${m}. ${YES}`,
    synonyms: ['media', 'heavy user', 'media habits', 'audience'],
    members: {
      MAGAZINE: 'magazines',
      NEWSPAPER: 'newspapers',
      RADIO: 'radio',
      PTRADIO: 'pay or satellite radio',
      TV: 'TV',
      INTERNET: 'the internet',
      ODRMDA: 'on-demand media',
    },
  },
  {
    prefix: 'CT_SOCIALUSAGE30_NET',
    label: (m) => `Used social network ${m} (last 30 days)`,
    description: (m) => `Y when the person used social network ${m} in the last 30 days. ${YES}`,
    synonyms: ['social media', 'social network', 'facebook', 'instagram', 'tiktok'],
    members: { 1: '1', 2: '2', 3: '3', 4: '4', 5: '5', 6: '6' },
  },
  {
    prefix: 'CT_STRMSUB_SVC',
    label: (m) => `Subscribes to streaming service ${m}`,
    description: (m) => `Y when the person subscribes to streaming service ${m}. ${YES}`,
    synonyms: ['streaming', 'subscription', 'netflix', 'video on demand', 'cord cutter'],
    members: { 1: '1', 2: '2', 3: '3' },
  },
  {
    prefix: 'CT_SMRTPHN_TYPEOWNS_OS',
    label: (m) => `Smartphone platform ${m}`,
    description: (m) => `Y when the person's smartphone runs platform ${m}; a person has at most one of the two. ${YES}`,
    synonyms: ['smartphone', 'mobile phone', 'iphone', 'android', 'operating system'],
    members: { 1: '1', 2: '2' },
  },
  {
    prefix: 'CT_HOME',
    label: (m) => `${m} (last 12 months)`,
    description: (m) => `Y when the household did a ${m.toLowerCase()} project in the last 12 months. ${YES}`,
    synonyms: ['home improvement', 'remodel', 'renovation', 'diy', 'contractor'],
    members: { IMPROVE12_ANY: 'Home improvement', REMODEL12_ANY: 'Home remodel' },
  },
  {
    prefix: 'CT_POLITICAL_PARTYAFF_',
    label: (m) => `Party affiliation: ${m}`,
    description: (m) => `Y when the person leans to the ${m} party; at most one party is flagged. ${YES}`,
    synonyms: ['politics', 'political party', 'party', 'voter', 'affiliation'],
    members: { DEMOCRAT: 'Democratic', GOP: 'Republican', IND: 'Independent' },
  },
  {
    prefix: 'CT_POLITICAL_OUTLK_',
    label: (m) => `Political outlook: ${m}`,
    description: (m) => `Y when the person's political outlook is ${m}; at most one outlook is flagged. ${YES}`,
    synonyms: ['politics', 'political views', 'ideology', 'conservative', 'liberal'],
    members: {
      VCONSERV: 'very conservative',
      SWCONSERV: 'somewhat conservative',
      MID: 'middle of the road',
      SWLIBERAL: 'somewhat liberal',
      VLIBERAL: 'very liberal',
    },
  },
  {
    prefix: 'CT_ONLINESHOPSEG_',
    label: (m) => `Online shopper: ${m}`,
    description: (m) => `Y when the person's online shopping segment is ${m}; a person is in one segment. ${YES}`,
    synonyms: ['online shopping', 'ecommerce', 'shopper', 'shopping segment'],
    members: {
      OFFLINE: 'offline shoppers',
      TRAD: 'traditional shoppers',
      STRAITFWD: 'straightforward shoppers',
      DEALSEEK: 'deal seekers',
      QUALSEEK: 'quality seekers',
    },
  },
  {
    prefix: 'CT_TECHTUDESEG_',
    label: (m) => `Technology attitude: ${m}`,
    description: (m) => `Y when the person's attitude to technology is that of ${m}; a person is in one segment. ${YES}`,
    synonyms: ['technology', 'tech attitude', 'early adopter', 'gadgets'],
    members: {
      PHOBES: 'technophobes',
      LAGGRDS: 'laggards',
      XPLOIT: 'exploiters',
      GAMER: 'gamers',
      THUSIAST: 'enthusiasts',
      XPLOR: 'explorers',
    },
  },
  {
    prefix: 'CT_DNR_CONTRIB_',
    label: (m) => `Donates to ${m}`,
    description: (m) => `Y when the person donates to ${m}. ${YES}`,
    synonyms: ['donor', 'donation', 'charity', 'giving', 'contribution'],
    members: {
      ORG1: 'organisation 1',
      ORG2: 'organisation 2',
      RELIGIOUS: 'religious causes',
      ARTS: 'the arts',
      EDU: 'education',
      ENVIRO: 'the environment',
      HEALTH: 'health causes',
      POL: 'political causes',
      SOCSERV: 'social services',
      NONREL: 'non-religious causes',
    },
  },
  {
    prefix: 'CT_',
    label: (m) => m,
    description: (m) => `Y when the person is a ${m.toLowerCase()}. ${YES}`,
    synonyms: ['donor', 'charity', 'giving', 'volunteer'],
    members: { DNR_CONTRIBAMT_HIGH: 'High-amount donor', VOLUNTEER_CHTYORG: 'Charity volunteer' },
  },
];

function behaviourRow(name: string): Row | undefined {
  for (const family of FLAG_FAMILIES) {
    if (!name.startsWith(family.prefix)) continue;
    const member = family.members[name.slice(family.prefix.length)];
    if (member) return [family.label(member), 'Behaviour', family.description(member), [...family.synonyms, member.toLowerCase()]];
  }
  return undefined;
}

// CENS* fields of the ZIP area: percentages (whole numbers 0-100) of a base, or figures with their unit.
const CENSUS_PERCENT: Readonly<Record<string, readonly [subject: string, base: string, synonyms: readonly string[]]>> = {
  WATER: ['water', 'its surface that is water', ['water', 'lakes', 'coast']],
  POP_WHITE: ['White', 'people who are White', ['race', 'white', 'ethnicity']],
  POP_BLACK: ['Black', 'people who are Black', ['race', 'black', 'african american', 'ethnicity']],
  POP_AMERIND: ['American Indian', 'people who are American Indian or Alaska Native', ['race', 'native american', 'ethnicity']],
  POP_ASIAN: ['Asian', 'people who are Asian', ['race', 'asian', 'ethnicity']],
  POP_PACISL: ['Pacific Islander', 'people who are Native Hawaiian or Pacific Islander', ['race', 'pacific islander', 'hawaiian']],
  POP_OTHRACE: ['other race', 'people of another race', ['race', 'other race', 'ethnicity']],
  POP_MULTIRACE: ['two or more races', 'people of two or more races', ['race', 'multiracial', 'mixed race']],
  POP_HISPANIC: ['Hispanic', 'people who are Hispanic or Latino, of any race', ['hispanic', 'latino', 'ethnicity']],
  POP_AGELT18: ['under 18', 'people who are under 18 (children)', ['minors', 'youth', 'under 18']],
  POP_MALES: ['male', 'people who are male', ['men', 'male', 'sex ratio', 'gender']],
  ADULT_AGE1824: ['adults aged 18 to 24', 'adults aged 18 to 24', ['age', 'young adults']],
  ADULT_AGE2534: ['adults aged 25 to 34', 'adults aged 25 to 34', ['age', 'young adults']],
  ADULT_AGE3544: ['adults aged 35 to 44', 'adults aged 35 to 44', ['age', 'middle aged']],
  ADULT_AGE4554: ['adults aged 45 to 54', 'adults aged 45 to 54', ['age', 'middle aged']],
  ADULT_AGE5564: ['adults aged 55 to 64', 'adults aged 55 to 64', ['age', 'older adults']],
  ADULT_AGEGE65: ['adults aged 65 and over', 'adults aged 65 and over', ['age', 'seniors', 'elderly', 'retirees']],
  HH_FAMILY: ['family households', 'households that are families', ['families', 'family households']],
  HH_FAMILY_HUSBWIFE: ['husband-wife households', 'households that are husband-wife families', ['married couples', 'couples', 'families']],
  HU_OCCUPIED: ['occupied homes', 'housing units that are occupied', ['occupancy', 'housing units']],
  HU_OWNED: ['owner-occupied homes', 'occupied housing units lived in by their owners', ['homeownership', 'owners', 'housing units']],
  HU_RENTED: ['rented homes', 'occupied housing units that are rented', ['renters', 'rentals', 'housing units']],
  HU_VACANTSEASONAL: ['seasonal homes', 'housing units that are vacant for seasonal use', ['vacation homes', 'second homes', 'seasonal']],
};
const CENSUS_FIGURE: Readonly<Record<string, Row>> = {
  CENS_POP_DENSITY: [
    'Area population density',
    'Census area',
    "People per square mile in the person's ZIP code area.",
    ['population density', 'density', 'urban', 'rural', 'crowded'],
  ],
  CENS_HU_DENSITY: [
    'Area housing density',
    'Census area',
    "Housing units per square mile in the person's ZIP code area.",
    ['housing density', 'density', 'homes per square mile'],
  ],
  CENS_POP_MEDAGE: [
    'Area median age',
    'Census area',
    "Median age of the people in the person's ZIP code area, in years.",
    ['median age', 'age'],
  ],
  CENS_HH_AVGSIZE: [
    'Area average household size',
    'Census area',
    'Average number of people per household in the ZIP code area, in hundredths of a person (254 means 2.54 people).',
    ['household size', 'average household', 'family size'],
  ],
};
const CENSUS_WORDS = ['census', 'area', 'neighborhood', 'zip'];

function censusRow(name: string): Row | undefined {
  const figure = CENSUS_FIGURE[name];
  if (figure) return [figure[0], figure[1], figure[2], [...figure[3], ...CENSUS_WORDS]];
  const percent = name.startsWith('CENSPCT_') ? CENSUS_PERCENT[name.slice(8)] : undefined;
  if (!percent) return undefined;
  const [subject, base, synonyms] = percent;
  return [
    `Area percent ${subject}`,
    'Census area',
    `In the person's ZIP code area, the percent of ${base}: a whole number from 0 to 100.`,
    [...synonyms, 'percent', ...CENSUS_WORDS],
  ];
}

function reservedRow(name: string): Row | undefined {
  const m = /^INTERNAL(\d*)$/.exec(name);
  if (!m) return undefined;
  const n = m[1] || '1';
  const coded: Record<string, string> = { 7: 'A to E', 9: 'P, S or T' };
  const description = coded[n]
    ? `An opaque single-letter code (${coded[n]}) kept for the data vendor's own use.`
    : "Kept for the data vendor's own use; empty in the records seen.";
  return [`Reserved field ${n}`, 'Reserved', description, ['internal', 'reserved', 'vendor']];
}

function describe(field: FieldDef): Described {
  const row =
    FIELD_TEXT[field.name] ??
    phoneRow(field.name) ??
    mailOrderRow(field.name) ??
    interestRow(field.name) ??
    behaviourRow(field.name) ??
    censusRow(field.name) ??
    reservedRow(field.name);
  if (!row) throw new Error(`The data dictionary has no words for ${field.name}.`);
  const [label, group, description, synonyms] = row;
  return { label, group, description, synonyms: [...new Set(synonyms.map((s) => s.toLowerCase()))] };
}

/** Every record field, in catalog order, with its analyst words and (coded fields) its codes. */
export const DATA_DICTIONARY: readonly DictionaryEntry[] = Object.freeze(
  FIELDS.map((field) => {
    const { label, group, description, synonyms } = describe(field);
    return Object.freeze({
      name: field.name,
      label,
      group,
      type: field.type,
      description,
      values: CODEBOOK[field.name] ?? null,
      synonyms: Object.freeze(synonyms),
    });
  }),
);

const BY_NAME = new Map(DATA_DICTIONARY.map((e) => [e.name, e]));

/** The entry of a field (names match case-insensitively), or undefined. */
export function dictionaryEntry(name: string): DictionaryEntry | undefined {
  return BY_NAME.get(name.toUpperCase());
}

// Search: each query word is found at its best level in an entry; an entry must hold every word.
const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'in', 'on', 'for', 'to', 'with', 'or', 'by', 'is']);
const LEVEL = { name: 0, label: 1, synonym: 2, description: 3, code: 4 } as const;
const PREFIX_PENALTY = 0.25;

const words = (text: string): string[] => text.toLowerCase().match(/[a-z0-9+]+/g) ?? [];

interface SearchIndex {
  readonly entry: DictionaryEntry;
  readonly order: number;
  readonly labelText: string;
  readonly labelLength: number;
  readonly synonymSet: ReadonlySet<string>;
  readonly levels: ReadonlyArray<readonly [level: number, words: readonly string[]]>;
}

const SEARCH_INDEX: readonly SearchIndex[] = DATA_DICTIONARY.map((entry, order) => ({
  entry,
  order,
  labelText: words(entry.label).join(' '),
  labelLength: words(entry.label).length,
  synonymSet: new Set(entry.synonyms.map((s) => words(s).join(' '))),
  levels: [
    [LEVEL.name, entry.name.toLowerCase().split('_')],
    [LEVEL.label, words(entry.label)],
    [LEVEL.synonym, entry.synonyms.flatMap(words)],
    [LEVEL.description, words(entry.description)],
    [LEVEL.code, (entry.values ?? []).flatMap((v) => words(v.label))],
  ],
}));

/** The best level at which `word` is found in an entry: exact word, else a word it begins (3+ letters). */
function levelOf(index: SearchIndex, word: string): number {
  let best = Infinity;
  for (const [level, list] of index.levels) {
    if (level >= best) break;
    if (list.includes(word)) return level;
    if (word.length >= 3 && list.some((w) => w.startsWith(word))) best = level + PREFIX_PENALTY;
  }
  return best;
}

/**
 * Fields matching a free-text query, best first: the exact field name, then fields whose label holds
 * the words, then synonyms, then descriptions, then the meanings of their codes ("bachelor" finds
 * EDUCATIONCD). Case-insensitive; every word must be found; ties go to the shorter label, then catalog order.
 */
export function searchFields(query: string, limit = 20): DictionaryEntry[] {
  const trimmed = query.trim();
  if (!trimmed || limit <= 0) return [];
  const exactName = trimmed.toUpperCase().replace(/\s+/g, '_');
  const all = words(trimmed);
  const meaningful = all.filter((w) => !STOP_WORDS.has(w));
  const queryWords = meaningful.length ? meaningful : all;
  const phrase = all.join(' ');
  if (!queryWords.length) return [];
  const scored: Array<{ index: SearchIndex; score: number; sum: number }> = [];
  for (const index of SEARCH_INDEX) {
    if (index.entry.name === exactName) {
      scored.push({ index, score: -10, sum: 0 });
      continue;
    }
    const levels = queryWords.map((w) => levelOf(index, w));
    let score = Math.max(...levels);
    if (score === Infinity) continue;
    // The whole query as the label or a synonym ranks with label matches; a label holding it gains a little.
    if (index.labelText === phrase || index.synonymSet.has(phrase)) score = Math.min(score, LEVEL.label) - 0.4;
    else if (` ${index.labelText} `.includes(` ${phrase} `)) score -= 0.3;
    scored.push({ index, score, sum: levels.reduce((a, b) => a + b, 0) });
  }
  scored.sort((a, b) => a.score - b.score || a.sum - b.sum || a.index.labelLength - b.index.labelLength || a.index.order - b.index.order);
  return scored.slice(0, limit).map((s) => s.index.entry);
}
