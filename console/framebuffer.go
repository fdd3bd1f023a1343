package console

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// The screen is Width×Height pixels, each a colour index into Palette.
const (
	Width  = 128
	Height = 128
)

// Palette is the console's 16 colours.
var Palette = color.Palette{
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // 0 black
	color.RGBA{0x1d, 0x2b, 0x53, 0xff}, // 1 dark blue
	color.RGBA{0x7e, 0x25, 0x53, 0xff}, // 2 dark purple
	color.RGBA{0x00, 0x87, 0x51, 0xff}, // 3 dark green
	color.RGBA{0xab, 0x52, 0x36, 0xff}, // 4 brown
	color.RGBA{0x5f, 0x57, 0x4f, 0xff}, // 5 dark grey
	color.RGBA{0xc2, 0xc3, 0xc7, 0xff}, // 6 light grey
	color.RGBA{0xff, 0xf1, 0xe8, 0xff}, // 7 white
	color.RGBA{0xff, 0x00, 0x4d, 0xff}, // 8 red
	color.RGBA{0xff, 0xa3, 0x00, 0xff}, // 9 orange
	color.RGBA{0xff, 0xec, 0x27, 0xff}, // 10 yellow
	color.RGBA{0x00, 0xe4, 0x36, 0xff}, // 11 green
	color.RGBA{0x29, 0xad, 0xff, 0xff}, // 12 blue
	color.RGBA{0x83, 0x76, 0x9c, 0xff}, // 13 lavender
	color.RGBA{0xff, 0x77, 0xa8, 0xff}, // 14 pink
	color.RGBA{0xff, 0xcc, 0xaa, 0xff}, // 15 peach
}

// Framebuffer holds one screen of colour indices, row by row.
type Framebuffer [Width * Height]uint8

// At returns the colour index at (x, y), 0 outside the screen.
func (fb *Framebuffer) At(x, y int) uint8 {
	if uint(x) >= Width || uint(y) >= Height {
		return 0
	}
	return fb[y*Width+x]
}

// Set paints (x, y); points outside the screen are clipped.
func (fb *Framebuffer) Set(x, y int, c uint8) {
	if uint(x) < Width && uint(y) < Height {
		fb[y*Width+x] = c & 15
	}
}

// Clear fills the screen with c.
func (fb *Framebuffer) Clear(c uint8) {
	c &= 15
	for i := range fb {
		fb[i] = c
	}
}

// RectFill fills the rectangle with corners (x0, y0) and (x1, y1), both included.
func (fb *Framebuffer) RectFill(x0, y0, x1, y1 int, c uint8) {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, Width-1), min(y1, Height-1)
	c &= 15
	for y := y0; y <= y1; y++ {
		row := fb[y*Width : y*Width+Width]
		for x := x0; x <= x1; x++ {
			row[x] = c
		}
	}
}

// Rect draws the outline of a rectangle.
func (fb *Framebuffer) Rect(x0, y0, x1, y1 int, c uint8) {
	fb.Line(x0, y0, x1, y0, c)
	fb.Line(x0, y1, x1, y1, c)
	fb.Line(x0, y0, x0, y1, c)
	fb.Line(x1, y0, x1, y1, c)
}

// Line draws a line with Bresenham's algorithm; both ends are included.
func (fb *Framebuffer) Line(x0, y0, x1, y1 int, c uint8) {
	// Clamp absurd coordinates so that a line far off screen costs bounded work.
	const far = 4 * Width
	x0, y0, x1, y1 = clamp(x0, -far, far), clamp(y0, -far, far), clamp(x1, -far, far), clamp(y1, -far, far)
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		fb.Set(x0, y0, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

// Text draws s with the built-in font from (x, y), its top left corner, and returns the x
// after the last character. "\n" starts a new line below x.
func (fb *Framebuffer) Text(s string, x, y int, c uint8) int {
	x0 := x
	for _, r := range s {
		if r == '\n' {
			x, y = x0, y+GlyphHeight+1
			continue
		}
		g := glyph(r)
		for row := 0; row < GlyphHeight; row++ {
			for col := 0; col < GlyphWidth; col++ {
				if g&(1<<(row*GlyphWidth+col)) != 0 {
					fb.Set(x+col, y+row, c)
				}
			}
		}
		x += GlyphWidth + 1
	}
	return x
}

// Image returns the screen as a paletted image.
func (fb *Framebuffer) Image() *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, Width, Height), Palette)
	copy(img.Pix, fb[:])
	return img
}

// PNG encodes the screen as a PNG file.
func (fb *Framebuffer) PNG() []byte {
	var buf bytes.Buffer
	_ = png.Encode(&buf, fb.Image()) // writing to memory cannot fail
	return buf.Bytes()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func clamp(x, lo, hi int) int { return min(max(x, lo), hi) }
