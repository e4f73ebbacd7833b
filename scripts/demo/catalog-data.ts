/**
 * What the demo store sells. Add a product as a row of its collection; the catalogue, its pushes and the pixel
 * objects are built from these tables (`catalog.ts`).
 */

/**
 * The catalogue: collection rows, then product rows `title | type | price | grams | tags | options`, where
 * options are either `Color,Color / Size,Size` (every combination) or `A; B; C` (as written). Some tags matter:
 * `bestseller` sells about four times as often, `new` puts a product in New Arrivals (and keeps it out of the Spring
 * Sale, without a compare-at price). XL variants cost $4 more; a product's unit cost is 28-46% of its price.
 */
export const CATALOGUE_TABLE = `
# tees | T-Shirts
Organic Cotton Tee | T-Shirts | 25 | 180 | cotton, organic, bestseller | White,Black / S,M,L
Heavyweight Pocket Tee | T-Shirts | 34 | 260 | cotton, heavyweight | Oatmeal,Navy / M,L
Slub V-Neck Tee | T-Shirts | 28 | 170 | cotton | Heather Grey / S,M,L
Long Sleeve Tee | T-Shirts | 32 | 220 | cotton, layering | Black,Sage / M,L
Mountain Graphic Tee | T-Shirts | 30 | 190 | graphic, new | Washed Black / S,M,L,XL
Striped Breton Tee | T-Shirts | 38 | 210 | stripes | Navy Stripe / S,M,L
Ringer Tee | T-Shirts | 26 | 180 | retro | White-Red / M,L
Essential Crew Tee 3-Pack | T-Shirts | 60 | 540 | bundle, bestseller | Mixed / S,M,L
# hoodies-sweats | Hoodies & Sweats
Fleece Pullover Hoodie | Hoodies | 68 | 620 | fleece, bestseller | Charcoal,Forest / M,L
Zip-Up Hoodie | Hoodies | 74 | 650 | fleece | Black,Heather Grey / M,L
Crewneck Sweatshirt | Sweatshirts | 58 | 560 | fleece | Oatmeal / S,M,L
Quarter-Zip Pullover | Sweatshirts | 72 | 540 | layering | Navy / M,L,XL
Waffle Knit Henley | Sweatshirts | 55 | 380 | waffle, new | Bone,Rust / M,L
Heavyweight Hoodie | Hoodies | 89 | 900 | heavyweight, premium | Black / S,M,L,XL
# pants-shorts | Pants & Shorts
Stretch Chino Pants | Pants | 78 | 520 | chino | Khaki / 30x32; Khaki / 32x32; Navy / 32x32; Navy / 34x32
Relaxed Fit Jeans | Pants | 98 | 780 | denim | Indigo / 30; Indigo / 32; Black / 32
Terry Joggers | Pants | 62 | 480 | fleece, lounge | Heather Grey,Black / M,L
Cargo Shorts | Shorts | 48 | 350 | summer | Olive / 32,34
Linen Trousers | Pants | 84 | 400 | linen, summer, new | Natural / M,L
Swim Trunks | Shorts | 45 | 200 | summer, swim | Palm Print / M; Palm Print / L; Navy / M
# socks-underwear | Socks & Underwear
Merino Wool Socks | Socks | 18 | 90 | wool, bestseller | Grey / M; Grey / L; Navy / L
Ankle Socks 3-Pack | Socks | 16 | 120 | bundle | White; Black
Hiking Socks | Socks | 22 | 110 | wool, outdoor | Charcoal / L
Boxer Briefs 3-Pack | Underwear | 42 | 210 | bundle, bestseller | Black / M; Black / L; Mixed / M
Cotton Trunks 2-Pack | Underwear | 30 | 150 | bundle | Navy / M,L
Everyday Crew Socks | Socks | 8.5 | 60 | basics | Grey; Black; White
# accessories | Accessories
Ribbed Beanie | Hats | 24 | 90 | winter | Charcoal; Rust; Cream
Six-Panel Cap | Hats | 28 | 100 | summer | Navy; Khaki
Canvas Tote Bag | Bags | 32 | 300 | bags | Natural
Leather Belt | Belts | 45 | 180 | leather | Brown / 32; Brown / 34; Black / 34
Wool Scarf | Scarves | 39 | 160 | wool, winter | Camel
Bucket Hat | Hats | 26 | 90 | summer, new | Olive; Black
Polarized Sunglasses | Eyewear | 65 | 40 | summer | Tortoise; Matte Black
Insulated Water Bottle | Drinkware | 29 | 350 | outdoor | Sage; Stone
# outerwear | Outerwear
Packable Rain Jacket | Jackets | 129 | 420 | rain, outdoor | Yellow,Navy / M,L
Puffer Vest | Jackets | 98 | 380 | layering | Black / M,L
Denim Trucker Jacket | Jackets | 119 | 900 | denim | Light Wash / M,L,XL
Sherpa Fleece Jacket | Jackets | 139 | 700 | fleece, bestseller | Cream / M,L
Canvas Chore Coat | Jackets | 169 | 1100 | workwear, new | Brown,Navy / M,L
Lightweight Windbreaker | Jackets | 89 | 300 | outdoor | Green / S,M,L
`;

/** What visitors type in the store search. */
export const SEARCH_QUERIES = [
  'hoodie',
  'tee',
  'socks',
  'jacket',
  'jeans',
  'wool',
  'linen',
  'cap',
  'black t shirt',
  'gift card',
  'sale',
  'fleece',
  'shorts',
  'belt',
];
